//go:build !amd64 && !arm64

package engine

import "unsafe"

func prefetch(unsafe.Pointer) {}
