// Package freezetest provides a fake of the one live source of package
// freeze that is neither Gerrit (tests use a real one) nor GitHub (the
// fake is reviewtest.GitHub, the same for every test): a release list in
// go.dev/dl's JSON format.
package freezetest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
)

// A Downloads serves a release list in go.dev/dl's JSON format from a file,
// which a test may swap while it runs.
type Downloads struct {
	URL string // the list's URL, as go.dev/dl/?mode=json

	srv  *httptest.Server
	mu   sync.Mutex
	file string
	hang chan struct{}
}

// NewDownloads starts a server of the release list in file. Close it when
// done.
func NewDownloads(file string) *Downloads {
	d := &Downloads{file: file, hang: make(chan struct{})}
	d.srv = httptest.NewServer(http.HandlerFunc(d.serve))
	d.URL = d.srv.URL + "/dl/?mode=json"
	return d
}

// Serve makes the server answer with file from now on; "" makes it hang
// until the client gives up, to test time limits.
func (d *Downloads) Serve(file string) {
	d.mu.Lock()
	d.file = file
	d.mu.Unlock()
}

// Close stops the server.
func (d *Downloads) Close() {
	close(d.hang)
	d.srv.Close()
}

func (d *Downloads) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/dl/" || r.URL.Query().Get("mode") != "json" {
		http.NotFound(w, r)
		return
	}
	d.mu.Lock()
	file := d.file
	d.mu.Unlock()
	if file == "" {
		select {
		case <-r.Context().Done():
		case <-d.hang:
		}
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}
