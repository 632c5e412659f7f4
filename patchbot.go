// Package patchbot holds what the whole module shares and that must sit at its
// root, because go:embed reaches only down the tree: the default
// configuration, config.yaml, and the built-in example's inputs, embedded so
// that an installed binary carries them.
//
// The commands live in cmd/patchbot; the job's steps in workflow/ and
// benchrun/; the codec that the built-in example is about in codec/.
package patchbot

import "embed"

// DefaultConfig is the text of config.yaml at the module root: patchbot's
// default configuration, commented. The config package parses it.
//
//go:embed config.yaml
var DefaultConfig []byte

// ExampleFiles holds the built-in example's inputs: the sources of codec/ as
// they are today and the Mercurial-era patch in docs/examples that gave codec
// its unsigned fast path. Package internal/example turns them into a
// repository.
//
//go:embed codec/*.go docs/examples/codec-unsigned-fastpath.hg.patch
var ExampleFiles embed.FS
