package job_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// A pull request's benchmarks: no port (the pull request has its commits),
// the bench step between the merge base and the head the command was
// written on, and the post step's comment on the pull request.
func ExampleRequest() {
	req := job.Request{
		Steps:  []string{job.StepBench, job.StepPost},
		Repo:   "/var/lib/patchbot/work/golang-go",
		Base:   "5a295b08adeb1b23f1b7d1a0d49e2c1e5b4f6a7c",
		Head:   "9f2c4b7e1d3a5c6b8e0f1a2b3c4d5e6f7a8b9c0d",
		Bench:  job.BenchSettings{Packages: []string{"./encoding/binary"}, Count: 10},
		GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("golang/go#8311"), HeadSHA: "9f2c4b7e1d3a5c6b8e0f1a2b3c4d5e6f7a8b9c0d"},
	}
	if err := req.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(req)
	// Output:
	// {
	//   "steps": [
	//     "bench",
	//     "post"
	//   ],
	//   "repo": "/var/lib/patchbot/work/golang-go",
	//   "base": "5a295b08adeb1b23f1b7d1a0d49e2c1e5b4f6a7c",
	//   "head": "9f2c4b7e1d3a5c6b8e0f1a2b3c4d5e6f7a8b9c0d",
	//   "bench": {
	//     "packages": [
	//       "./encoding/binary"
	//     ],
	//     "count": 10
	//   },
	//   "github": {
	//     "pull_request": "golang/go#8311",
	//     "head_sha": "9f2c4b7e1d3a5c6b8e0f1a2b3c4d5e6f7a8b9c0d"
	//   }
	// }
}

// A request that is not valid names the field, never a flag.
func ExampleRequest_Validate() {
	for _, req := range []job.Request{
		{Bench: job.BenchSettings{Count: 1000000}},
		{Bench: job.BenchSettings{Bench: "("}},
		{GitHub: &job.GitHub{PullRequest: review.PullRequest{Owner: "golang", Repo: "go", Number: 99999999999}}},
	} {
		fmt.Println(req.Validate())
	}
	// Output:
	// bench.count "1000000": must be from 1 to 1000
	// bench.bench "(": not a regular expression: error parsing regexp: missing closing ): `(`
	// github.pull_request: "golang/go#99999999999": pull request number 99999999999 is out of range (GitHub numbers them up to 2147483647)
}
