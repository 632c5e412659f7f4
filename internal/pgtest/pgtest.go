// Package pgtest gives tests the private PostgreSQL cluster that
// scripts/postgres-test-server starts, so that every test that needs it
// finds it, and skips without it, the same way; and a database of its own
// on it for each test.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// SkipMessage is what a test without PostgreSQL says.
const SkipMessage = `no PostgreSQL: eval "$(scripts/postgres-test-server start)" (scripts/test does it)`

// URL returns the cluster's URL (PATCHBOT_TEST_POSTGRES_URL), or skips t
// without it; with PATCHBOT_QUEUE_TEST_ENGINE=postgres, which asks for
// PostgreSQL, it fails t instead.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("PATCHBOT_TEST_POSTGRES_URL")
	if u == "" {
		if os.Getenv("PATCHBOT_QUEUE_TEST_ENGINE") == "postgres" {
			t.Fatal("PATCHBOT_QUEUE_TEST_ENGINE=postgres without PATCHBOT_TEST_POSTGRES_URL: " + SkipMessage)
		}
		t.Skip(SkipMessage)
	}
	return u
}

// NewDB makes an empty database of its own for t on the cluster, dropped
// (with whatever is still connected to it) when t ends, and returns its
// URL.
func NewDB(t testing.TB) string {
	t.Helper()
	base := URL(t)
	b := make([]byte, 6)
	rand.Read(b)
	name := "patchbot_test_" + hex.EncodeToString(b)
	ctx := context.Background()
	exec := func(sql string) error {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("the test PostgreSQL: %v", err)
	}
	t.Cleanup(func() {
		if err := exec("DROP DATABASE " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("dropping the test database: %v", err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
