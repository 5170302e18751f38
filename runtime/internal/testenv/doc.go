// Package testenv finds the test data of the runtime module's tests that
// lives outside the repository: the public spec corpus and the JSON
// Schema Test Suite, by the rule of the root module's internal/testenv.
package testenv
