// Package docs holds no code, only the tests that keep the README and the pages
// under docs/ true to the tool they describe:
//
//   - every fenced block after a `<!-- packer: ARGS -->` marker is the current
//     standard output of `packer ARGS`, run from the repository's root
//     (`make docs`, which is `go test ./internal/docs -run Generated -update`,
//     rewrites them);
//   - the README's quick starts (the sh blocks after `<!-- quickstart: NAME -->`)
//     run as written, line by line in sh, with a freshly built packer, in a
//     temporary directory holding copies of the files a clean clone has;
//   - the front door stays a front door (≤ 250 lines, opening with `make plan`
//     and `make test`), papers are cited by name, and every relative link and
//     every repository path the pages name exists;
//   - the pages stay pages for users: at most 500 lines each (300 for
//     simulating.md and optimizer.md), and no lab-notebook entries outside
//     code blocks (dates, commit hashes, scratch paths, measurement logs).
//
// The numbers in the docs therefore come from commands whose output is checked
// in; measurements that depend on the machine (benchmarks) are given with the
// command and the machine that produced them, as one current table.
package docs
