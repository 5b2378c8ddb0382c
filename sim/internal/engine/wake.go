package engine

import "math/bits"

// wakeList is the nodes to offer once the events of the current instant are
// done, in order. Most entries are nodes (woken by a task end, a kill, a
// policy); an arrival or a job's reduces becoming runnable wake every node
// with a free slot of the kind, which on a large cluster is thousands of
// nodes of which only the first few get a task. Such a wake is kept as one
// sweep marker and its nodes found when the drain reaches it, in node order
// as if they had been listed; once no job has a pending task, the rest of
// the list can only be empty offers and the drain stops.
//
// A sweep's nodes are those that, when it was added, had a free slot of its
// kind and were not yet in the list. The drain finds them by the same test
// (free slot, not woken, not offered earlier in this drain, not in a sweep
// drained before), which holds while nothing changes a node's free slots or
// wakes it; so before either happens with sweeps pending, realize lists
// their nodes explicitly.
type wakeList struct {
	wake    []int32 // nodes, or a sweep marker (sweepMarker(kind), sweepDone)
	woke    []bool  // node is in wake explicitly
	offered []uint32
	gen     uint32 // drain generation: offered[n] == gen if n was offered in this drain
	// lazy sweeps are pending (not done), wake[lazyFrom:] all markers;
	// wake[sweeping] is being drained (−1: none), up to node sweepAt.
	lazy, lazyFrom, sweeping, sweepAt int
	swept                             uint8 // kinds of the sweeps drained in this drain (bit k)
}

// sweepDone marks a sweep that was realized while being drained.
const sweepDone = -3

// sweepMarker is the wake entry of a sweep of kind k.
func sweepMarker(k Kind) int32 { return -1 - int32(k) }

// drain offers the slots of every node woken at this instant, in the order
// they were woken; offers may wake more nodes.
func (s *State) drain() {
	for i := 0; i < len(s.wake); i++ {
		if len(s.runnable[Map]) == 0 && len(s.runnable[Reduce]) == 0 {
			// Every offer left would decide nothing, and change nothing.
			for _, n := range s.wake[i:] {
				if n >= 0 {
					s.woke[n] = false
				}
			}
			break
		}
		switch n := s.wake[i]; {
		case n >= 0:
			s.woke[n] = false
			s.offered[n] = s.gen
			s.offer(int(n))
		case n != sweepDone:
			s.sweep(i, Kind(-1-n))
		}
	}
	s.wake = s.wake[:0]
	s.lazy, s.swept = 0, 0
	s.gen++
}

// sweep offers the nodes of the sweep at wake[i], in order, until it is
// done, realized, or nothing is left to decide. Nodes whose offer would
// decide nothing (no free slot of a kind some job has a task of) are passed
// over: such an offer changes nothing.
func (s *State) sweep(i int, k Kind) {
	s.sweeping, s.sweepAt = i, -1
	defer func() { s.sweeping = -1 }()
	for w := s.nextFreeWord(k, 0); w >= 0; w = s.nextFreeWord(k, w+1) {
		var done uint64 // this word's nodes already passed
		for {
			if s.wake[i] == sweepDone {
				return
			}
			var useful uint64
			if len(s.runnable[Map]) > 0 {
				useful |= s.freeBits[Map][w]
			}
			if len(s.runnable[Reduce]) > 0 {
				useful |= s.freeBits[Reduce][w]
			}
			word := s.freeBits[k][w] & useful &^ done &^ s.inEarlier(w)
			if word == 0 {
				break
			}
			b := bits.TrailingZeros64(word)
			done |= 2<<b - 1
			n := w*64 + b
			s.sweepAt = n
			if !s.woke[n] && s.offered[n] != s.gen {
				s.offered[n] = s.gen
				s.offer(n)
			}
		}
	}
	s.swept |= 1 << k
	s.lazy--
	s.lazyFrom++
}

// nextFreeWord is the first word w' ≥ w that may hold a node a sweep of
// kind k offers now, or −1: a word of freeBits[k] that is not 0 while the
// word of freeBits of a kind some job has a task of is not 0 either, which
// sweep's useful mask needs to be non-zero (necessary, not sufficient:
// sweep still tests the nodes). A word passed over is one where sweep,
// reading it at the same moment (no offer comes between), would have found
// nothing and moved on. Once no job has a task it is −1 and the sweep ends,
// rather than read on through every word with a free slot after the
// arriving job has taken the first few (157 words on 10,000 nodes).
func (s *State) nextFreeWord(k Kind, w int) int {
	sum := s.freeWords[k]
	maps, reds := len(s.runnable[Map]) > 0, len(s.runnable[Reduce]) > 0
	if !maps && !reds {
		return -1
	}
	useful := func(i int) uint64 {
		var u uint64
		if maps {
			u |= s.freeWords[Map][i]
		}
		if reds {
			u |= s.freeWords[Reduce][i]
		}
		return sum[i] & u
	}
	i := w / 64
	if i >= len(sum) {
		return -1
	}
	m := useful(i) & (^uint64(0) << (w % 64))
	for m == 0 {
		if i++; i == len(sum) {
			return -1
		}
		m = useful(i)
	}
	return i*64 + bits.TrailingZeros64(m)
}

// inEarlier is the nodes of word w that belonged to a sweep drained earlier
// in this drain, offered or passed over: they had a free slot of its kind
// then and, not offered since, still have.
func (s *State) inEarlier(w int) uint64 {
	var m uint64
	for k := range Kind(2) {
		if s.swept&(1<<k) != 0 {
			m |= s.freeBits[k][w]
		}
	}
	return m
}

// realize replaces the pending sweeps by the nodes they stand for (a sweep
// being drained by the nodes after the one it is offering).
func (s *State) realize() {
	var marks [8]int32
	pending := append(marks[:0], s.wake[s.lazyFrom:]...)
	s.wake = s.wake[:s.lazyFrom]
	from := 0
	if s.sweeping == s.lazyFrom {
		s.wake = append(s.wake, sweepDone) // keeps the drain's place
		from = s.sweepAt + 1
	}
	s.lazy = 0
	earlier := s.swept
	for _, m := range pending {
		k := Kind(-1 - m)
		for n := from; n < s.nodes; n++ {
			in := s.free[k][n] > 0 && !s.woke[n] && s.offered[n] != s.gen
			for k2 := range Kind(2) {
				in = in && (earlier&(1<<k2) == 0 || s.free[k2][n] == 0)
			}
			if in {
				s.woke[n] = true
				s.wake = append(s.wake, int32(n))
			}
		}
		earlier |= 1 << k
		from = 0
	}
}

// Wake asks for node's free slots to be offered once the events of the
// current instant are done. With heartbeats it does nothing: the node offers them at its next
// heartbeat, as in Hadoop.
func (s *State) Wake(node int) {
	if s.ref != nil {
		s.ref.wake(node)
		return
	}
	s.wakeUp(node)
}

// wakeUp is Wake in this engine, which its own task ends and kills call.
func (s *State) wakeUp(node int) {
	if s.set.Heartbeat == 0 {
		s.poke(node)
	}
}

func (s *State) poke(node int) {
	if s.woke[node] {
		return
	}
	if s.lazy > 0 {
		s.realize()
		if s.woke[node] {
			return // in a sweep
		}
	}
	s.woke[node] = true
	s.wake = append(s.wake, int32(node))
}

// wakeIdle wakes every node with a free slot of kind, without heartbeats.
func (s *State) wakeIdle(k Kind) {
	if s.set.Heartbeat > 0 {
		return
	}
	if s.lazy == 0 {
		s.lazyFrom = len(s.wake)
	}
	s.wake = append(s.wake, sweepMarker(k))
	s.lazy++
	if s.engine.EagerSweeps {
		s.realize() // the plain twin (Options)
	}
}
