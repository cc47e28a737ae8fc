//go:build !linux

package main

// adviseHugePages does nothing outside Linux, whose transparent huge pages
// it advises (see hugepages_linux.go), and reports that it did not.
func adviseHugePages() bool { return false }
