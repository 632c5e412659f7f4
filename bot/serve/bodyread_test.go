package serve

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
)

// A slowClient is an unsigned client that holds its connection: it sends
// a delivery's headers, declaring a body of declared bytes, then the first
// send bytes of the body, and then nothing more until it has its answer.
type slowClient struct {
	declared, send int
}

// A slowAnswer is what a slowClient got.
type slowAnswer struct {
	status     int
	retryAfter string
	closed     bool // the server said it closes the connection, and did
	err        error
}

// filler is the body the slow clients send, shared by all of them.
var filler = []byte(strings.Repeat("x", 64<<10))

// do runs c against addr. Its deadline guards against a hang: a server that
// holds the connection for a minute without an answer fails the test.
func (c slowClient) do(addr, id string) slowAnswer {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return slowAnswer{err: err}
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	// Signed, as far as the headers go: an attacker can always send a
	// well-formed signature, and only the body can show it is wrong.
	head := fmt.Sprintf("POST /webhook/github HTTP/1.1\r\nHost: patchbot\r\nContent-Type: application/json\r\n"+
		"X-GitHub-Event: issue_comment\r\nX-GitHub-Delivery: %s\r\nX-Hub-Signature-256: sha256=%s\r\nContent-Length: %d\r\n\r\n",
		id, strings.Repeat("0", 64), c.declared)
	go func() {
		// Write errors are expected: a server that refused the request
		// closes the connection while the body is still coming.
		if _, err := io.WriteString(conn, head); err != nil {
			return
		}
		for left := c.send; left > 0; {
			n, err := conn.Write(filler[:min(left, len(filler))])
			if err != nil {
				return
			}
			left -= n
		}
	}()
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return slowAnswer{err: err}
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	a := slowAnswer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	if resp.Close {
		// The server said it closes the connection: it must end (EOF or
		// a reset) now, not once the rest of the body came.
		_, err = br.ReadByte()
		a.closed = err != nil && !isTimeout(err)
	}
	return a
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// slowProbe runs n slow clients at once against the handler of cfg over
// loopback, each sending all but the last byte of a body of MaxBody
// bytes. It returns their answers and the largest growth of the heap in
// use (runtime.MemStats.HeapInuse, of this process: the server, the fake
// GitHub and the clients) seen while they ran, sampled every 10 ms.
func slowProbe(e *env, n int) ([]slowAnswer, uint64) {
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	addr := srv.Listener.Addr().String()

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > base && ms.HeapInuse-base > peak.Load() {
				peak.Store(ms.HeapInuse - base)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})

	c := slowClient{declared: int(e.h.cfg.MaxBody), send: int(e.h.cfg.MaxBody) - 1}
	answers := make([]slowAnswer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { answers[i] = c.do(addr, fmt.Sprintf("slow-%d", i)) })
	}
	wg.Wait()
	close(done)
	sampler.Wait()
	return answers, peak.Load()
}

// TestSlowClients is the probe of issue 24: 300 unsigned connections, each
// sending most of a 1 MiB body and then holding it, took serve from 37 to
// 375 MiB. With the defaults (16 bodies read at once, 4 of them from one
// address), the probe's address gets 4 read, until the body timeout ends
// them (408), and the others are answered 503 with Retry-After, their
// bodies unread and their connections closed; the heap grows by a few
// tens of MiB, not hundreds. A delivery from GitHub is served as soon as
// the probe is over: no slot is left taken.
func TestSlowClients(t *testing.T) {
	if testing.Short() {
		// About 6 s: the body timeout, and the connections' setup.
		t.Skip("300 slow connections; skipped with -short")
	}
	const n = 300
	e := newEnv(t, false, func(c *Config) { c.Logger = nil }) // 300 lines of "busy"
	answers, peak := slowProbe(e, n)

	count := map[int]int{}
	for i, a := range answers {
		switch {
		case a.err != nil:
			t.Errorf("client %d: %v (a timeout is a hang: no answer within a minute)", i, a.err)
		case a.status == http.StatusServiceUnavailable && a.retryAfter == "":
			t.Errorf("client %d: 503 without Retry-After", i)
		case a.status != http.StatusServiceUnavailable && a.status != http.StatusRequestTimeout:
			t.Errorf("client %d: %d; want 503 (no slot) or 408 (a slot, and too slow)", i, a.status)
		case !a.closed:
			t.Errorf("client %d: %d, and the connection was left open", i, a.status)
		}
		count[a.status]++
	}
	// The first 4 hold their slots until the body timeout, 5 s; the
	// others find their address's slots taken.
	limit := DefaultMaxBodyReadsPerAddr
	if count[408] < limit || count[503] < n-2*limit {
		t.Errorf("%d answered 408 and %d 503; want %d (the slots) and the other %d", count[408], count[503], limit, n-limit)
	}
	t.Logf("%d slow clients, %d bodies read at once: %d answered 408, %d answered 503; the heap in use grew by %.1f MiB at most (%.1f MiB per connection)",
		n, limit, count[408], count[503], float64(peak)/(1<<20), float64(peak)/(1<<20)/n)
	// Without the bound, each connection held its body: 300 MiB and more.
	// With it, 16 bodies of 1 MiB, their buffers' growth, and a few KiB
	// per connection: the target is serve under 100 MiB, 63 more
	// than the 37 it started at.
	if peak > 63<<20 {
		t.Errorf("the heap in use grew by %.1f MiB under %d slow clients; want less than 63 MiB", float64(peak)/(1<<20), n)
	}

	// The slots are all free again.
	w := e.serve(request("after-the-probe", "ping", []byte(`{"zen":"Approachable is better than simple."}`)))
	if w.Code != http.StatusOK {
		t.Errorf("a ping after the probe: %d %s", w.Code, w.Body)
	}
	if free := len(e.h.reads); free != DefaultMaxBodyReads {
		t.Errorf("%d of %d slots free after the probe", free, DefaultMaxBodyReads)
	}
}

// BenchmarkSlowClients states the memory the probe of TestSlowClients
// costs, as the growth of the heap in use (runtime.MemStats.HeapInuse) at
// its peak, with the default bound (reads=16) and with none (reads=300: as
// many as the clients, as before the bound):
//
//	go test -run '^$' -bench SlowClients -benchtime 1x ./bot/serve
func BenchmarkSlowClients(b *testing.B) {
	const n = 300
	for _, reads := range []int{DefaultMaxBodyReads, n} {
		b.Run(fmt.Sprintf("reads=%d", reads), func(b *testing.B) {
			e := newEnv(b, false, func(c *Config) { c.MaxBodyReads, c.MaxBodyReadsPerAddr = reads, reads })
			var peak uint64
			for b.Loop() {
				answers, p := slowProbe(e, n)
				for i, a := range answers {
					if a.err != nil {
						b.Fatalf("client %d: %v", i, a.err)
					}
				}
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(peak)/(1<<20)/n, "MiB/conn")
		})
	}
}

// TestSlowClientsOneAddress (#44 D5): 16 slow unsigned connections from one
// address, as many as there are slots, used to lock every delivery out
// (503 busy) until the body timeout. They hold their address's 4 slots
// only: a signed delivery from another address is served at once, a
// fifth from theirs waits its BodyWait for one of them and is answered
// 503, and a body that dribbles is cut at the minimum rate's time, not
// the body timeout's.
func TestSlowClientsOneAddress(t *testing.T) {
	e := newEnv(t, false, func(c *Config) {
		c.Logger = nil
		c.MaxBody = 64 << 10
		c.BodyTimeout = 10 * time.Second
	})
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	const n = 16
	answers := make([]slowAnswer, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Go(func() { answers[i] = slowClient{declared: 64 << 10, send: 100}.do(addr, fmt.Sprintf("slow-%d", i)) })
	}
	for e.h.addrs.count("127.0.0.1") < DefaultMaxBodyReadsPerAddr {
		if time.Since(start) > time.Minute {
			t.Fatal("hung: the slow clients took no slots within a minute")
		}
		time.Sleep(time.Millisecond)
	}

	// GitHub, from another loopback address, while they hold on.
	ping := []byte(`{"zen":"Keep it logically awesome."}`)
	client := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}}
	req := request("from-github", "ping", ping)
	req.URL, req.RequestURI = must(url.Parse(srv.URL+"/webhook/github")), ""
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a delivery from another address during the probe: %d %s; want 200", resp.StatusCode, body)
	}
	if a := (slowClient{declared: 100, send: 100}).do(addr, "fifth"); a.status != http.StatusServiceUnavailable || a.retryAfter == "" {
		t.Errorf("a fifth from the probe's address: %+v; want 503 with Retry-After", a)
	}
	wg.Wait()
	held := 0
	for _, a := range answers {
		if a.status == http.StatusRequestTimeout {
			held++
		}
	}
	// 64 KiB at the minimum rate: 2 s, not the body timeout's 10.
	if took := time.Since(start); held != DefaultMaxBodyReadsPerAddr || took > 8*time.Second {
		t.Errorf("%d slow clients cut at 408 after %v; want %d, within the minimum rate's 2 s", held, took.Round(time.Millisecond), DefaultMaxBodyReadsPerAddr)
	}
}

// TestBodyReadsBounded: with one slot, every way a read can end gives the
// slot back (the next delivery is served), a burst of GitHub's
// deliveries waits for it rather than fails, and a delivery that finds it
// taken is answered 503 at once, its connection closed, even when its
// body is small enough that net/http would otherwise read the rest of it.
func TestBodyReadsBounded(t *testing.T) {
	e := newEnv(t, false, func(c *Config) {
		c.MaxBody = 4096
		c.MaxBodyReads = 1
		c.BodyWait = 200 * time.Millisecond
		c.BodyTimeout = 2 * time.Second
	})
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	ping := []byte(`{"zen":"Half measures are as bad as nothing at all."}`)

	// Each way a read ends, then a ping: a slot kept would make it a 503.
	for _, tc := range []struct {
		name string
		do   func() int
		want int
	}{
		{"too slow", func() int { return slowClient{declared: 100, send: 10}.do(addr, "too-slow").status }, 408},
		{"too large, declared", func() int { return slowClient{declared: 5000, send: 5000}.do(addr, "too-large").status }, 413},
		{"no length, chunked", func() int {
			r := request("no-length-chunked", "ping", []byte(strings.Repeat(" ", 5000)))
			r.ContentLength = -1
			r.Body = io.NopCloser(strings.NewReader(strings.Repeat(" ", 5000)))
			return e.serve(r).Code
		}, 411},
		{"bad signature", func() int { return slowClient{declared: 100, send: 100}.do(addr, "bad-sig").status }, 401},
		{"bad JSON", func() int { return e.serve(request("bad-json", "issue_comment", []byte(`{"action":`))).Code }, 400},
		{"ping", func() int { return e.serve(request("ping", "ping", ping)).Code }, 200},
	} {
		if got := tc.do(); got != tc.want {
			t.Errorf("%s: %d; want %d", tc.name, got, tc.want)
		}
		if w := e.serve(request(deliveryID("after "+tc.name), "ping", ping)); w.Code != http.StatusOK {
			t.Errorf("a ping after %s: %d %s; want 200 (a slot not given back?)", tc.name, w.Code, w.Body)
		}
	}

	// A burst of 40 deliveries from 8 clients: one slot, and each waits
	// for it.
	var sends []send
	for i := range 40 {
		sends = append(sends, send{delivery: fmt.Sprintf("burst-%d", i), event: "ping", body: ping, sig: Sign(testSecret, ping)})
	}
	for i, r := range load(t, srv.URL, sends, 8, 0) {
		if r.status != http.StatusOK {
			t.Errorf("burst delivery %d: %d; want 200", i, r.status)
		}
	}

	// The slot taken by a slow client: a small body that dribbles gets
	// its 503 and a closed connection while the slow one still holds on.
	holder := make(chan slowAnswer)
	go func() { holder <- slowClient{declared: 1000, send: 10}.do(addr, "holder") }()
	for start := time.Now(); len(e.h.reads) != 0; time.Sleep(time.Millisecond) {
		if time.Since(start) > time.Minute {
			t.Fatal("hung: the slow client took no slot within a minute")
		}
	}
	a := slowClient{declared: 1000, send: 10}.do(addr, "refused")
	if a.err != nil || a.status != http.StatusServiceUnavailable || a.retryAfter != "2" || !a.closed {
		t.Errorf("with the slot taken: %+v; want 503, Retry-After: 2 (the body timeout) and the connection closed", a)
	}
	if h := <-holder; h.status != http.StatusRequestTimeout {
		t.Errorf("the slot's holder: %+v; want 408", h)
	}
}

// TestReadInto: the body comes back whole however it is read, into the
// buffer given when it fits, and a declared body beyond keepBuffer costs
// its size and a byte, not a doubling.
func TestReadInto(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	for _, tc := range []struct {
		name    string
		body    []byte
		size    int64 // the declared length; -1: none
		buf     []byte
		reader  func(io.Reader) io.Reader
		wantCap int // 0: any
	}{
		{"empty", nil, 0, nil, nil, 0},
		{"small, declared", big[:300], 300, nil, nil, 512},
		{"small, into a buffer", big[:300], 300, make([]byte, 10, 4096), nil, 4096},
		{"small, a byte at a time", big[:3000], -1, nil, iotest.OneByteReader, 0},
		{"1 MiB, declared", big, int64(len(big)), nil, nil, len(big) + 1},
		{"1 MiB, declared, in halves", big, int64(len(big)), nil, iotest.HalfReader, len(big) + 1},
		{"1 MiB, declared, into a buffer", big, int64(len(big)), make([]byte, 0, keepBuffer), nil, len(big) + 1},
		{"64 KiB exactly, declared", big[:keepBuffer], keepBuffer, nil, nil, 0},
		{"1 MiB, not declared", big, -1, nil, nil, 0},
	} {
		var r io.Reader = bytes.NewReader(tc.body)
		if tc.reader != nil {
			r = tc.reader(r)
		}
		got, err := readInto(tc.buf, r, tc.size)
		if err != nil || !bytes.Equal(got, tc.body) {
			t.Errorf("%s: %d bytes, %v; want the %d bytes of the body", tc.name, len(got), err, len(tc.body))
		}
		if tc.wantCap != 0 && cap(got) != tc.wantCap {
			t.Errorf("%s: a buffer of %d bytes; want %d", tc.name, cap(got), tc.wantCap)
		}
	}
	// A read error is returned with what came before it.
	got, err := readInto(nil, iotest.TimeoutReader(bytes.NewReader(big[:10])), -1)
	if err == nil || len(got) != 10 {
		t.Errorf("a reader that fails after 10 bytes: %d bytes, %v", len(got), err)
	}
}
