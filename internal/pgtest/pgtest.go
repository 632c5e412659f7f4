// Package pgtest gives tests the private PostgreSQL cluster that
// scripts/postgres-test-server starts, so that every test that needs it
// finds it the same way, and without it skips, or fails under scripts/test
// (internal/testenv); and a database of its own on it for each test.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/patchbot/patchbot/internal/testenv"
)

// URL returns the cluster's URL (PATCHBOT_TEST_POSTGRES_URL). Without it
// it skips t, or fails t when the run requires PostgreSQL (testenv.Postgres,
// as scripts/test does) or asks for it (PATCHBOT_QUEUE_TEST_ENGINE=postgres).
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("PATCHBOT_TEST_POSTGRES_URL")
	if u == "" && os.Getenv("PATCHBOT_QUEUE_TEST_ENGINE") == "postgres" {
		t.Fatal("PATCHBOT_QUEUE_TEST_ENGINE=postgres without PATCHBOT_TEST_POSTGRES_URL: " + testenv.Postgres.Remedy)
	}
	var missing error
	if u == "" {
		missing = errors.New("PATCHBOT_TEST_POSTGRES_URL is not set")
	}
	testenv.Need(t, testenv.Postgres, missing)
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
