// Package patchbot holds what the whole module shares and that must sit at its
// root, because go:embed reaches only down the tree: the default
// configuration, config.yaml, the built-in example's inputs and the pages of
// docs/, embedded so that an installed binary carries them.
//
// The tree shows patchbot's layers, each calling only the ones below it:
// cmd/patchbot (flags) over bot/ (the review-comment bot) over job/ (the
// job: a request in, a result out) over step/ (the step libraries: port,
// freeze, bench, review, the sandbox); the codec that the built-in example
// is about is in codec/. layers_test.go holds the tree to that.
package patchbot

import "embed"

// Version is patchbot's version: the newest in CHANGELOG.md, which
// 'patchbot version' prints. Raise both together (version_test.go checks).
const Version = "v0.1.0"

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

// Docs holds the pages of docs/, so that an installed binary's user, who
// has no checkout, can read what its messages point to: 'patchbot doc
// PAGE' prints one.
//
//go:embed docs/*.md
var Docs embed.FS
