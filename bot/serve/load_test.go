package serve

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// A send is one delivery of a load: a request's parts, so that it can be
// sent more than once.
type send struct {
	delivery, event string
	body            []byte
	sig             string
}

func (s send) request(url string) *http.Request {
	r, _ := http.NewRequest("POST", url+"/webhook/github", bytes.NewReader(s.body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(headerEvent, s.event)
	r.Header.Set(headerDelivery, s.delivery)
	r.Header.Set(headerSignature, s.sig)
	return r
}

func signed(delivery string, c comment) send {
	body := c.payload()
	return send{delivery: delivery, event: "issue_comment", body: body, sig: Sign(testSecret, body)}
}

// fakeSHA is a head commit for pull request n.
func fakeSHA(n int) string {
	s := sha1.Sum([]byte(fmt.Sprint("head ", n)))
	return hex.EncodeToString(s[:])
}

// A result is what one send got back, and how long it took.
type result struct {
	status  int
	latency time.Duration
}

// load sends sends to url: with pace 0, from workers goroutines as fast as
// they go; with a pace, each send in its own goroutine at that interval
// (an open loop, as GitHub delivers). The results are in sends' order.
func load(tb testing.TB, url string, sends []send, workers int, pace time.Duration) []result {
	// The client's timeout guards against a hang, not slowness: the
	// latencies are BenchmarkWebhook's to state.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}
	defer client.CloseIdleConnections()
	out := make([]result, len(sends))
	do := func(i int) {
		start := time.Now()
		resp, err := client.Do(sends[i].request(url))
		if err != nil {
			tb.Errorf("delivery %s: %v (a timeout: the server hung, a minute without an answer)", sends[i].delivery, err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		out[i] = result{status: resp.StatusCode, latency: time.Since(start)}
	}
	var wg sync.WaitGroup
	if pace > 0 {
		tick := time.NewTicker(pace)
		defer tick.Stop()
		for i := range sends {
			if i > 0 {
				<-tick.C
			}
			wg.Go(func() { do(i) })
		}
	} else {
		next := make(chan int)
		for range workers {
			wg.Go(func() {
				for i := range next {
					do(i)
				}
			})
		}
		for i := range sends {
			next <- i
		}
		close(next)
	}
	wg.Wait()
	return out
}

// p99 returns the 99th percentile of the results' latencies.
func p99(rs []result) time.Duration {
	ls := make([]time.Duration, len(rs))
	for i, r := range rs {
		ls[i] = r.latency
	}
	slices.Sort(ls)
	return ls[min(len(ls)-1, len(ls)*99/100)]
}

// lockedBuffer is a log's destination shared by the handler's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLoad delivers 1,000 events over a loopback server, 10% of them
// redeliveries and 10% with a bad signature, from 8 clients at once, and
// checks that the queue holds exactly the jobs the good ones ask for, each
// once, and that the log has one line per delivery and no secret.
func TestLoad(t *testing.T) {
	var logs lockedBuffer
	e := newEnv(t, false, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	srv := httptest.NewServer(e.h)
	defer srv.Close()

	const n = 1000
	var sends []send
	var want []string
	wantStatus := map[int]int{} // status: deliveries
	for i := range n {
		pr := 100 + i
		id := fmt.Sprintf("load-%04d", i)
		c := comment{PR: pr, ID: int64(10000 + i), Body: "/patchbot bench -count 10 ./codec"}
		switch i % 10 {
		case 3: // bad signature: would be a job if it were GitHub's
			e.gh.SetHead(pr, fakeSHA(pr))
			s := signed(id, c)
			s.sig = Sign([]byte("not the secret"), s.body)
			sends = append(sends, s)
			continue
		case 7: // a redelivery of an earlier good delivery
			sends = append(sends, sends[i-5])
			continue
		case 6: // a stranger: one refusal
			c.Login = "bob"
			want = append(want, fmt.Sprintf("refuse github:gopher/codec#%d @ author:bob", pr))
		case 8:
			c.Body = "/patchbot help"
			want = append(want, fmt.Sprintf("help github:gopher/codec#%d @ message:%d", pr, c.ID))
		case 9:
			c.Body = "LGTM"
		default:
			e.gh.SetHead(pr, fakeSHA(pr))
			want = append(want, fmt.Sprintf("bench github:gopher/codec#%d @ %s", pr, fakeSHA(pr)))
		}
		sends = append(sends, signed(id, c))
	}
	start := time.Now()
	results := load(t, srv.URL, sends, 8, 0)
	elapsed := time.Since(start)

	for i, r := range results {
		switch {
		case i%10 == 3 && r.status != 401:
			t.Errorf("delivery %d, badly signed: %d; want 401", i, r.status)
		case i%10 == 9 && r.status != 200:
			t.Errorf("delivery %d, no command: %d; want 200", i, r.status)
		case i%10 != 3 && i%10 != 9 && r.status != 200 && r.status != 202:
			t.Errorf("delivery %d: %d; want 202, or 200 for a redelivery", i, r.status)
		}
		wantStatus[r.status]++
	}
	if wantStatus[401] != n/10 {
		t.Errorf("%d deliveries refused as unsigned; want %d", wantStatus[401], n/10)
	}
	if wantStatus[202] != len(want) {
		t.Errorf("%d deliveries queued a job; want %d", wantStatus[202], len(want))
	}
	e.wantJobs(want...)

	out := logs.String()
	if lines := strings.Count(out, " msg=webhook "); lines != n {
		t.Errorf("%d log lines for %d deliveries", lines, n)
	}
	if strings.Contains(out, string(testSecret)) || strings.Contains(out, "sha256=") {
		t.Errorf("the log has the secret or a signature in it")
	}
	// Informational: the figures that matter are BenchmarkWebhook's.
	t.Logf("%d deliveries in %v (%.0f/s), p99 %v; %d jobs", n, elapsed, n/elapsed.Seconds(), p99(results), len(want))
}

// BenchmarkWebhook measures deliveries per second and the 99th percentile
// of the time to the answer, each delivery a reviewer's bench command on
// a pull request of its own: the most work a delivery makes (the author's
// permission and the pull request's head read from the fake GitHub, over
// loopback, in the same process; a job inserted into SQLite in a temporary
// directory).
//
//	max:      4 clients, each sending as soon as its last answer came
//	rate=200: an open loop at 200 deliveries per second, as GitHub sends
func BenchmarkWebhook(b *testing.B) {
	for _, bc := range []struct {
		name string
		pace time.Duration
	}{
		{"max", 0},
		{"rate=200", 5 * time.Millisecond},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := newEnv(b, false, nil)
			srv := httptest.NewServer(e.h)
			defer srv.Close()
			sends := make([]send, b.N)
			for i := range sends {
				pr := 100 + i
				e.gh.SetHead(pr, fakeSHA(pr))
				sends[i] = signed(fmt.Sprintf("bench-%d", i), comment{PR: pr, ID: int64(10000 + i), Body: "/patchbot bench -count 10 ./codec"})
			}
			b.ResetTimer()
			start := time.Now()
			results := load(b, srv.URL, sends, 4, bc.pace)
			elapsed := time.Since(start)
			b.StopTimer()
			for i, r := range results {
				if r.status != http.StatusAccepted {
					b.Fatalf("delivery %d: %d", i, r.status)
				}
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "deliveries/s")
			b.ReportMetric(float64(p99(results).Microseconds())/1000, "p99-ms")
		})
	}
}
