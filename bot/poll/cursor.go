package poll

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A Cursor is how far a poller has read a Gerrit server: the date of the
// newest review message it has read, and the ids of the messages it has
// read near that date, so that a message of the same second (Gerrit's
// query reads seconds), or one that the server's index shows late, is read
// once and not lost.
type Cursor struct {
	// Since is the date of the newest message read (Gerrit's clock, UTC).
	// The zero Cursor has read nothing.
	Since time.Time `json:"since"`
	// Seen holds the messages read whose date is at most the poller's
	// overlap before Since: their ids and dates.
	Seen map[string]time.Time `json:"seen,omitempty"`
}

// IsZero reports whether c has read nothing.
func (c Cursor) IsZero() bool { return c.Since.IsZero() && len(c.Seen) == 0 }

// Merge returns the cursor that has read what a and b have read, with a
// Poller's overlap (0 is DefaultOverlap): for a cursor kept elsewhere too,
// as serve keeps one in the queue's database beside each machine's file.
func Merge(a, b Cursor, overlap time.Duration) Cursor {
	if overlap == 0 {
		overlap = DefaultOverlap
	}
	return merge(a, b, overlap)
}

// merge returns the cursor that has read what a and b have read, keeping
// in Seen only the messages dated at or after Since-overlap.
func merge(a, b Cursor, overlap time.Duration) Cursor {
	out := Cursor{Since: a.Since, Seen: map[string]time.Time{}}
	if b.Since.After(out.Since) {
		out.Since = b.Since
	}
	from := out.Since.Add(-overlap)
	for _, seen := range []map[string]time.Time{a.Seen, b.Seen} {
		for id, at := range seen {
			if !at.Before(from) {
				out.Seen[id] = at
			}
		}
	}
	return out
}

// A Store keeps a poller's cursor across restarts.
type Store interface {
	// Load returns the cursor saved last, or the zero Cursor when none
	// was.
	Load() (Cursor, error)
	// Save replaces the cursor, all at once: a crash leaves the old one
	// or the new one.
	Save(Cursor) error
}

// A FileStore keeps a cursor in a small JSON file, written atomically: to
// a temporary file in the same directory, synced, then renamed over the
// old one.
type FileStore struct {
	Path string
}

// NewFileStore returns the store of the cursor of the Gerrit server at
// serverURL in dir: the file gerrit-HOST.cursor.json (HOST with its port
// and path, made safe for a file name), so that one directory holds the
// cursors of several servers.
func NewFileStore(dir, serverURL string) (*FileStore, error) {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("poll: cursor of %q: not a server URL", serverURL)
	}
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, strings.TrimSuffix(u.Host+u.Path, "/"))
	return &FileStore{Path: filepath.Join(dir, "gerrit-"+name+".cursor.json")}, nil
}

// Load reads the cursor file; a file that is not there is the zero
// Cursor.
func (s *FileStore) Load() (Cursor, error) {
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return Cursor{}, nil
	}
	if err != nil {
		return Cursor{}, fmt.Errorf("poll: reading the cursor: %w", err)
	}
	var c Cursor
	if err := json.Unmarshal(data, &c); err != nil {
		return Cursor{}, fmt.Errorf("poll: cursor %s: %v (move it away to start again from now)", s.Path, err)
	}
	return c, nil
}

// Save writes the cursor file atomically, creating its directory if need
// be.
func (s *FileStore) Save(c Cursor) error {
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("poll: saving the cursor: %w", err)
	}
	data, err := json.MarshalIndent(c, "", "\t")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(s.Path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("poll: saving the cursor: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.Path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("poll: saving the cursor: %w", err)
	}
	return nil
}

// MemStore is a Store in memory, for tests and for a poller that need not
// survive its process.
type MemStore struct {
	mu sync.Mutex
	c  Cursor
}

func (s *MemStore) Load() (Cursor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Cursor{Since: s.c.Since, Seen: maps.Clone(s.c.Seen)}, nil
}

func (s *MemStore) Save(c Cursor) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.c = Cursor{Since: c.Since, Seen: maps.Clone(c.Seen)}
	return nil
}
