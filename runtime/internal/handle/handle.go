// Package handle holds the handle rule the generator shares with the
// runtime: the example handle input schemas show.
package handle

// Example is a well-formed handle of the type with this prefix, for input
// schemas' examples: the generator takes it from here so that the example
// always passes the runtime's own check (TestHandleExampleWellFormed in
// package runtime).
func Example(prefix string) string {
	return prefix + "k7qw2mx5pl4st6vb3nr6yz5cf7hj2ade"
}
