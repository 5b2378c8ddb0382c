package optimize

// heapOf is a container/heap of T ordered by before (the top is the item
// before every other): one type for the searches' priority queues instead
// of a Len, Less, Swap, Push and Pop for each.
type heapOf[T any] struct {
	items  []T
	before func(a, b T) bool
}

func (h *heapOf[T]) Len() int           { return len(h.items) }
func (h *heapOf[T]) Less(i, j int) bool { return h.before(h.items[i], h.items[j]) }
func (h *heapOf[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *heapOf[T]) Push(x any)         { h.items = append(h.items, x.(T)) }
func (h *heapOf[T]) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
