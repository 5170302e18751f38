// Package ovgen tests the generator with override files nobody wrote: a
// seeded generator of random but valid override files over public specs
// (every tool kind, every input rewrite, every output shaping and paging
// mode, id and state handles, confirmations, plus deliberate path
// typos), each run through generate, the
// proof and a spec-driven fake upstream, with invariants that hold for
// any file. The package has only tests; see ovgen_test.go.
package ovgen
