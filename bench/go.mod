module github.com/oa2mcp/oa2mcp/bench

go 1.26.8

require (
	github.com/oa2mcp/oa2mcp v0.5.0
	github.com/oa2mcp/oa2mcp/examples v0.5.0
	github.com/oa2mcp/oa2mcp/runtime v0.5.0
)

replace (
	github.com/oa2mcp/oa2mcp => ../
	github.com/oa2mcp/oa2mcp/examples => ../examples
	github.com/oa2mcp/oa2mcp/runtime => ../runtime
	github.com/oa2mcp/oa2mcp/runtime/redisstore => ../runtime/redisstore
)
