// Package e2e holds the end-to-end tests, behind the build tag e2e that
// scripts/test.sh sets: the public spec corpus generated, compiled,
// started and listed through a real MCP client; the official conformance
// suite and the MCP Inspector against the examples; the go generate
// workflow; servers generated outside any module; the generated
// petstore server against a hostile upstream (hostile_test.go).
//
//	go test -tags e2e ./e2e
package e2e
