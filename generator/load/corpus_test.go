package load

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

var corpusEntries = []struct {
	file string
	ops  int
}{
	{"oai-petstore-3.0.yaml", 3},
	{"oai-petstore-expanded-3.0.yaml", 4},
	{"oai-api-with-examples-3.0.yaml", 2},
	{"oai-tictactoe-3.1.yaml", 3},
	{"oai-webhook-example-3.1.yaml", 0},
	{"oai-petstore-2.0.json", 3},
	{"oai-petstore-separate-2.0/spec/swagger.yaml", 4},
	{"swagger-petstore-3.0.yaml", 19},
	{"swagger-petstore-3.1.yaml", 6},
	{"redocly-museum-3.1.yaml", 8},
	{"slack-web-2.0.json", 174},
	{"openai-3.1.yaml", 288},
	{"kubernetes-2.0.json", 1123},
	{"twilio-api-v2010-3.0.json", 197},
	{"box-3.0.json", 296},
	{"discourse-3.1.json", 93},
	{"go-admin-2.0.json", 76},
	{"stripe-2018-3.0.yaml", 298},
	{"matrix-cs-3.1/api/client-server/sync.yaml", 1},
	{"matrix-cs-3.1/api/client-server/key_backup.yaml", 14},
	{"digitalocean-3.0/DigitalOcean-public.v2.yaml", 659},
}

func TestCorpus(t *testing.T) {
	corpusDir := testenv.CorpusDir(t)
	for _, e := range corpusEntries {
		t.Run(e.file, func(t *testing.T) {
			start := time.Now()
			doc, probs := Load(context.Background(), filepath.Join(corpusDir, e.file), Options{})
			t.Logf("%s: %d warnings, %v", e.file, len(probs.Warnings()), time.Since(start))
			if probs.HasErrors() {
				t.Fatalf("errors:\n%s", probs.Errors().Error())
			}
			if got := len(doc.Operations); got != e.ops {
				t.Errorf("operations = %d, want %d", got, e.ops)
			}
		})
	}
}
