// Package job is patchbot's job as a library: one Request, which is data
// (it round-trips through JSON unchanged and holds no credentials), turned
// with the configuration and an Env into a run of the steps port, freeze,
// bench and post (Run). The CLI builds a Request from its flags;
// a server's worker and a scheduled Action build the same Request from a
// queued job or an event, and get the same result and the same review
// message.
//
// Beside it are the two jobs of a branch's history, in the same shape:
// Bisect (a BisectRequest: which commit made the benchmarks slower) and
// Track (a TrackRequest: record a branch's commits, find where they
// changed, bisect and comment on each slowdown). Each is
// Job(ctx, request, configuration, Env): the request is data, and what
// comes from the process (review clients, the track store, the queue a
// track's bisections go to, where progress and lines are told) is in the
// Env.
//
// A request that is not valid is refused before anything is done with a
// *remedy.FieldError naming the field, in the request's own JSON names
// ("bench.count"), never a flag of the CLI: each caller says the remedy
// in its own words (the CLI as its flag, sweep as config.yaml's key).
//
// The whole job (Run) is four steps: port a Mercurial-era patch onto a
// Git repository (step/port), check whether the target branch is frozen
// (step/freeze), benchmark the touched packages before and after
// (benchrun), and post one review message that says both (step/review),
// pushing the change for review first when asked.
//
// Each step reports as it ends, so a person watching sees the job move; a
// step that fails stops the job with its own error and leaves what the
// steps before it did in place: a ported branch stays, and nothing is half
// posted, because the message is composed in full before anything is
// pushed or posted.
//
// With no repository, Run replays the founding story (internal/example): a
// scratch repository holding codec/ from before the unsigned fast path,
// the example patch ported onto it, the freeze check, codec's ReadInts and
// WriteInts benchmarks before and after, and the message it would post.
package job
