package testenv

// CorpusEntry is one entry file of the public spec corpus.
type CorpusEntry struct {
	// Name is a short identifier, usable as a folder or package name.
	Name string
	// Path is the entry file relative to the corpus folder.
	Path string
}

// Corpus lists every entry of ../shared/corpus (multi-file specs by their
// entry documents), sorted by name.
func Corpus() []CorpusEntry {
	return []CorpusEntry{
		{"box", "box-3.0.json"},
		{"digitalocean", "digitalocean-3.0/DigitalOcean-public.v2.yaml"},
		{"discourse", "discourse-3.1.json"},
		{"goadmin", "go-admin-2.0.json"},
		{"kubernetes", "kubernetes-2.0.json"},
		{"matrixkeybackup", "matrix-cs-3.1/api/client-server/key_backup.yaml"},
		{"matrixsync", "matrix-cs-3.1/api/client-server/sync.yaml"},
		{"oaiexamples", "oai-api-with-examples-3.0.yaml"},
		{"oaipetstore2", "oai-petstore-2.0.json"},
		{"oaipetstore3", "oai-petstore-3.0.yaml"},
		{"oaipetstoreexpanded", "oai-petstore-expanded-3.0.yaml"},
		{"oaipetstoreseparate", "oai-petstore-separate-2.0/spec/swagger.yaml"},
		{"oaitictactoe", "oai-tictactoe-3.1.yaml"},
		{"oaiwebhook", "oai-webhook-example-3.1.yaml"},
		{"openai", "openai-3.1.yaml"},
		{"redoclymuseum", "redocly-museum-3.1.yaml"},
		{"slack", "slack-web-2.0.json"},
		{"stripe", "stripe-2018-3.0.yaml"},
		{"swaggerpetstore30", "swagger-petstore-3.0.yaml"},
		{"swaggerpetstore31", "swagger-petstore-3.1.yaml"},
		{"twilio", "twilio-api-v2010-3.0.json"},
	}
}
