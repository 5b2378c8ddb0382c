//go:build amd64 || arm64

package engine

import "unsafe"

// prefetch asks the processor to bring the cache line at p into the cache
// without waiting for it: a load that stalls nothing. Go has no such
// intrinsic outside the runtime, so it is two instructions of assembly on
// amd64 and arm64, and nothing elsewhere. The simulator uses it where it
// knows, a few events ahead, which task and job records the next events
// will read, at 10⁷ tasks each of them a miss to memory (eventQueue.ahead).
//
//go:noescape
func prefetch(p unsafe.Pointer)
