package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestThpDisabled checks that thpDisabled reads GODEBUG's disablethp as the
// runtime does: 1 turns it on, the last setting wins.
func TestThpDisabled(t *testing.T) {
	for godebug, want := range map[string]bool{
		"":                             false,
		"disablethp=1":                 true,
		"disablethp=0":                 false,
		"gctrace=1,disablethp=1":       true,
		"disablethp=1,disablethp=0":    false,
		"disablethp=0,disablethp=1":    true,
		"disablethp=10":                false,
		"xdisablethp=1":                false,
		"madvdontneed=1, disablethp=1": true,
	} {
		if got := thpDisabled(godebug); got != want {
			t.Errorf("thpDisabled(%q) = %v, want %v", godebug, got, want)
		}
	}
}

// hugePagesChild, set in the environment, makes
// TestTheHeapGrowsIntoAdvisedHugePages run its child's part.
const hugePagesChild = "IDEMGEN_TEST_HUGEPAGES_CHILD"

// TestTheHeapGrowsIntoAdvisedHugePages checks, in a process of its own (a
// test's heap is not a fresh one), that after adviseHugePages the heap
// grows into mappings Linux backs with huge pages: of 64 MiB allocated in
// 4 KiB objects, at least nine in ten lie in a mapping whose VmFlags in
// /proc/self/smaps hold "hg" (MADV_HUGEPAGE). It needs a system whose
// transparent huge pages are "madvise".
func TestTheHeapGrowsIntoAdvisedHugePages(t *testing.T) {
	if os.Getenv(hugePagesChild) == "1" {
		heapGrowsIntoHugePages()
		return
	}
	if !thpAdvised() {
		data, _ := os.ReadFile(thpEnabled)
		t.Skipf("%s is %q here, not madvise: adviseHugePages does nothing", thpEnabled, strings.TrimSpace(string(data)))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTheHeapGrowsIntoAdvisedHugePages$")
	// GOMEMLIMIT or GODEBUG=disablethp=1 would turn the advice off.
	cmd.Env = append(withoutVariables(os.Environ(), "GOMEMLIMIT", "GODEBUG"), hugePagesChild+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var in, all int
	if _, err := fmt.Sscanf(lastLine(string(out), "advised:"), "advised: %d of %d", &in, &all); err != nil {
		t.Fatalf("child's output: %v\n%s", err, out)
	}
	t.Logf("%d of %d heap objects in huge-page mappings", in, all)
	if all == 0 || in*10 < all*9 {
		t.Errorf("%d of %d heap objects in huge-page mappings, want at least nine in ten\n%s", in, all, out)
	}
}

// heapGrowsIntoHugePages is the child's part of
// TestTheHeapGrowsIntoAdvisedHugePages: it advises, allocates and prints
// "advised: IN of ALL".
func heapGrowsIntoHugePages() {
	if !adviseHugePages() {
		fmt.Println("adviseHugePages did not advise")
		os.Exit(1)
	}
	objects := make([]*[4096]byte, 16<<10)
	for i := range objects {
		objects[i] = new([4096]byte)
	}
	advised, err := hugePageMappings()
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	in := 0
	for _, o := range objects {
		addr := uint64(uintptr(unsafe.Pointer(o)))
		for _, m := range advised {
			if m[0] <= addr && addr < m[1] {
				in++
				break
			}
		}
	}
	fmt.Printf("advised: %d of %d\n", in, len(objects))
}

// hugePageMappings returns the address ranges of the process's mappings
// whose VmFlags hold "hg".
func hugePageMappings() ([][2]uint64, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][2]uint64
	var current [2]uint64
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		switch {
		case len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			lo, hi, _ := strings.Cut(fields[0], "-")
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("smaps: mapping %q", fields[0])
			}
			current = [2]uint64{start, end}
		case len(fields) > 0 && fields[0] == "VmFlags:":
			for _, flag := range fields[1:] {
				if flag == "hg" {
					out = append(out, current)
				}
			}
		}
	}
	return out, scanner.Err()
}

// lastLine returns the last line of s that starts with prefix ("" when
// none does).
func lastLine(s, prefix string) string {
	last := ""
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, prefix) {
			last = line
		}
	}
	return last
}

// withoutVariables returns env without the variables names.
func withoutVariables(env []string, names ...string) []string {
	var out []string
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		if !slices.Contains(names, name) {
			out = append(out, e)
		}
	}
	return out
}
