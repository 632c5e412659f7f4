package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Reading a delivery's body is the one thing the webhook does for anyone
// before it knows the request is GitHub's: the signature covers the body,
// so the body must be read to check it. Unbounded, that is memory for
// anyone to spend: 300 connections that each sent most of a 1 MiB body
// and then held it took serve from 37 to 375 MiB (issue 24). So the
// reads are bounded by slots, as many as Config.MaxBodyReads: a delivery
// takes a slot before its body is read and gives it back once the body is
// checked and decoded, before any read of GitHub; one that finds no slot
// within Config.BodyWait is answered 503 with its body unread; and one that
// holds a slot may take Config.BodyTimeout to send its body, no longer. At
// most MaxBodyReads × MaxBody bytes of bodies are held at once, whatever
// the number of connections.

// A delivery's body must also come at a rate: within minBodyTime, and
// then minBodyRate per second of its declared length, or BodyTimeout if
// that is sooner. GitHub sends a payload at once; a client that sends a
// few bytes a second holds its slot for a second, not BodyTimeout.
const (
	minBodyTime = time.Second
	minBodyRate = 64 << 10 // bytes per second
)

// bodyDeadline is how long a body of size bytes (the declared length,
// which the webhook requires) may take to arrive: the minimum rate's
// time, at most timeout.
func bodyDeadline(size int64, timeout time.Duration) time.Duration {
	return min(timeout, minBodyTime+time.Duration(max(size, 0))*time.Second/minBodyRate)
}

// addrReads counts the slots each remote address holds
// (Config.MaxBodyReadsPerAddr).
type addrReads struct {
	mu      sync.Mutex
	max     int
	n       map[string]int
	changed chan struct{} // closed, and replaced, when a slot is given back
}

// take counts a slot for addr, waiting up to wait while addr holds max
// already (as a delivery waits for a slot of all: behind a proxy, every
// delivery comes from one address, and its bodies take microseconds); it
// reports false if none came in time or ctx ended first.
func (a *addrReads) take(ctx context.Context, addr string, wait time.Duration) bool {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		a.mu.Lock()
		if a.n[addr] < a.max {
			a.n[addr]++
			a.mu.Unlock()
			return true
		}
		if a.changed == nil {
			a.changed = make(chan struct{})
		}
		ch := a.changed
		a.mu.Unlock()
		select {
		case <-ch:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// give gives back a slot of addr's.
func (a *addrReads) give(addr string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n[addr]--; a.n[addr] <= 0 {
		delete(a.n, addr)
	}
	if a.changed != nil {
		close(a.changed)
		a.changed = nil
	}
}

// count returns the slots addr holds.
func (a *addrReads) count(addr string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n[addr]
}

// remoteHost is the address a request came from, without its port.
func remoteHost(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// keepBuffer is the largest buffer a slot keeps for the next read: most
// payloads are a few KiB, and a slot that once read a 1 MiB body should
// not hold that memory for good.
const keepBuffer = 64 << 10

// readSlots bounds the bodies read at once. Each slot carries a buffer that
// the next read reuses.
type readSlots chan []byte

func newReadSlots(n int) readSlots {
	s := make(readSlots, n)
	for range n {
		s <- nil
	}
	return s
}

// acquire takes a slot and its buffer, waiting up to wait for one; it
// reports false if none came in time or ctx ended first.
func (s readSlots) acquire(ctx context.Context, wait time.Duration) ([]byte, bool) {
	select {
	case b := <-s:
		return b, true
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case b := <-s:
		return b, true
	case <-t.C:
		return nil, false
	case <-ctx.Done():
		return nil, false
	}
}

// release gives the slot back with b, the buffer it was given, grown or
// not. The caller must not use b afterwards: it is the next read's.
func (s readSlots) release(b []byte) {
	if cap(b) > keepBuffer {
		b = nil
	}
	s <- b[:0]
}

// readInto reads r to its end into b's memory and returns the bytes read:
// io.ReadAll with a buffer given, so that a slot's buffer is reused. The
// buffer doubles as it fills, up to keepBuffer; beyond it, given size > 0
// (the body's declared length, which net/http holds it to), it grows to
// size at once, so that a 1 MiB body costs 1 MiB rather than 2 with the
// halves that doubling leaves behind, and only once 64 KiB of it came.
func readInto(b []byte, r io.Reader, size int64) ([]byte, error) {
	b = b[:0]
	if cap(b) == 0 {
		b = make([]byte, 0, 512) // as io.ReadAll starts
	}
	for {
		if len(b) == cap(b) {
			if size > 0 && cap(b) >= keepBuffer && int64(cap(b)) <= size {
				// One byte more than the body, for the read that
				// finds its end.
				b = append(make([]byte, 0, size+1), b...)
			} else {
				b = append(b, 0)[:len(b)] // grow, as append does
			}
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
