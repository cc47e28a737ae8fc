package main

import (
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// hugePageReach is how many bytes of heap adviseHugePages backs with
// transparent huge pages: the heap limit tuneGC sets, under which the
// largest spec measured (Stripe) generates.
const hugePageReach = 256 << 20

// madvHugePage is Linux's MADV_HUGEPAGE, which package syscall does not
// name.
const madvHugePage = 14

// thpEnabled is where Linux says which memory it backs with transparent
// huge pages: always, never, or madvise (what a process advises).
const thpEnabled = "/sys/kernel/mm/transparent_hugepage/enabled"

// adviseHugePages asks Linux to back the heap the process is about to grow
// into with transparent huge pages (2 MiB) where the system leaves that to
// each process: thpEnabled set to madvise, the default of Debian and
// Ubuntu. Loading a spec and generating from it allocates tens of
// megabytes, mostly short-lived, and each 4 KiB page the heap touches
// first is a page fault: about 12,000 for Adyen v72 and 18,000 for
// Twilio. In 2 MiB pages they are a fifth as many, and generate takes
// 12-23% less CPU (docs/benchmarks.md, "Huge pages for the heap").
//
// Go's runtime gives its heap no such advice, so adviseHugePages makes the
// heap map hugePageReach bytes with one allocation it never touches,
// advises that mapping and hands it back (debug.FreeOSMemory collects the
// still small heap and releases the untouched region to the system). The
// page allocator takes the lowest free addresses first, so the heap grows
// into the region, and the advice stays with the mapping when its pages
// are released or used again.
//
// It does nothing where the system backs memory with huge pages always or
// never, under GODEBUG=disablethp=1, when GOMEMLIMIT is set (the region
// would count against the limit until it is released), under an address
// space limit (ulimit -v: the allocation could fail, which ends the
// process), and on a 32-bit system. It must run before tuneGC sets the
// heap limit, for the same reason. It reports whether it advised.
func adviseHugePages() bool {
	if strconv.IntSize != 64 || thpDisabled(os.Getenv("GODEBUG")) || !thpAdvised() || addressSpaceLimited() {
		return false
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return false
	}
	adviseRegion()
	debug.FreeOSMemory()
	return true
}

// adviseRegion allocates hugePageReach bytes, advises Linux to back them
// with huge pages and returns the region's start (for tests); the region
// is garbage once it returns.
func adviseRegion() uintptr {
	region := make([]byte, hugePageReach)
	// The advice is best effort: without it the heap is what it was
	// (a kernel built without transparent huge pages has no thpEnabled).
	_ = syscall.Madvise(region, madvHugePage)
	return uintptr(unsafe.Pointer(unsafe.SliceData(region)))
}

// thpAdvised reports whether the system backs with huge pages only memory
// a process advised: thpEnabled selects "[madvise]".
func thpAdvised() bool {
	data, err := os.ReadFile(thpEnabled)
	return err == nil && bytes.Contains(data, []byte("[madvise]"))
}

// thpDisabled reports whether godebug, a GODEBUG value, turns the runtime's
// disablethp on (the last setting of it wins, as in the runtime).
func thpDisabled(godebug string) bool {
	disabled := false
	for setting := range strings.SplitSeq(godebug, ",") {
		if value, ok := strings.CutPrefix(strings.TrimSpace(setting), "disablethp="); ok {
			disabled = value == "1"
		}
	}
	return disabled
}

// addressSpaceLimited reports whether the process's virtual memory is
// limited (RLIMIT_AS), or the limit cannot be read.
func addressSpaceLimited() bool {
	var limit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &limit); err != nil {
		return true
	}
	return limit.Cur != ^uint64(0)
}
