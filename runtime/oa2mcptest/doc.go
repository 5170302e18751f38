// Package oa2mcptest holds what the tests of generated oa2mcp servers
// share: the call-case driver that every generated oa2mcp_calls_test.go
// runs, the format of the case file it reads the cases from
// (testdata/oa2mcp_calls.json, see EncodeCases and RunFile), a fake
// upstream that serves every operation of a server's definition, and
// contract tests for HandleStore implementations. It is imported only by
// tests.
package oa2mcptest
