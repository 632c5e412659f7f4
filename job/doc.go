// Package job is patchbot's job as a library: one Request, which is data
// (it round-trips through JSON unchanged and holds no credentials), turned
// with the configuration and an Env into a run of the steps port, freeze,
// bench and post (Run). The CLI builds a Request from its flags;
// a server's worker and a scheduled Action build the same Request from a
// queued job or an event, and get the same result and the same review
// message.
//
// A Request that is not valid is refused before anything is done with a
// *remedy.FieldError naming the field, in the Request's own JSON names
// ("bench.count"), never a flag of the CLI: each caller says the remedy
// in its own words.
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
