//go:build !amd64 && !arm64

package sim

import "unsafe"

func prefetch(unsafe.Pointer) {}
