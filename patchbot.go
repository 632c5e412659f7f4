// Package patchbot holds what the whole module shares and that must sit at its
// root: the default configuration, config.yaml, embedded so that an installed
// binary carries it.
//
// The commands live in cmd/patchbot; the job's steps in workflow/ and
// benchrun/; the codec that the built-in example is about in codec/.
package patchbot

import _ "embed"

// DefaultConfig is the text of config.yaml at the module root: patchbot's
// default configuration, commented. The config package parses it.
//
//go:embed config.yaml
var DefaultConfig []byte
