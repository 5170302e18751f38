package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxRemoteBytes caps a fetched remote document so a hostile server cannot
// exhaust memory.
const maxRemoteBytes = 64 << 20

// fileSet reads spec files for kin-openapi and keeps their (fixed-up) bytes,
// so that repeated loads after a repair and position look-ups never read a
// file twice, and so that raw-text fix-ups happen before kin parses.
type fileSet struct {
	ctx   context.Context
	entry string // as given by the caller
	opts  Options
	// data holds each file's bytes after raw fix-ups, keyed by URL string.
	data map[string][]byte
	// order lists the keys of data in first-read order (deterministic).
	order []string
	// lastRead is the last file handed to kin, to attribute parse errors.
	lastRead string
	failed   bool
	// fixups is applied to every file once, when it is first read.
	fixups func(key string, b []byte) []byte
}

func newFileSet(ctx context.Context, entry string, opts Options) *fileSet {
	return &fileSet{ctx: ctx, entry: entry, opts: opts, data: map[string][]byte{}}
}

// entryURL is the location kin-openapi sees for the entry file: the path as
// given, so that relative $refs join to paths relative to where the user
// ran the tool.
func (f *fileSet) entryURL() *url.URL {
	return &url.URL{Path: filepath.ToSlash(f.entry)}
}

func (f *fileSet) entryData() []byte { return f.data[f.entryURL().String()] }

// readEntry reads the entry file into the set (without fix-ups yet).
func (f *fileSet) readEntry() ([]byte, error) {
	b, err := readRegular(f.entry)
	if err != nil {
		return nil, err
	}
	key := f.entryURL().String()
	f.data[key] = b
	f.order = append(f.order, key)
	return b, nil
}

// setEntry replaces the entry's bytes (after fix-ups).
func (f *fileSet) setEntry(b []byte) { f.data[f.entryURL().String()] = b }

func (f *fileSet) resetRun() { f.lastRead = "" }

// kinLoader returns a fresh kin-openapi loader reading through this set.
// Origin tracking stays off: it almost doubles kin's load time, and the
// few positions the Document needs are read from the raw text instead
// (positions3.go).
func (f *fileSet) kinLoader() *openapi3.Loader {
	kl := openapi3.NewLoader()
	kl.Context = f.ctx
	kl.IsExternalRefsAllowed = true
	kl.ReadFromURIFunc = f.read
	return kl
}

// refReadError says a referenced document could not be read; repair uses
// it to find and report the $refs that point there.
type refReadError struct {
	url    string
	remote bool
	cause  error
}

func (e *refReadError) Error() string { return fmt.Sprintf("cannot read %s: %v", e.url, e.cause) }

// read is the loader's ReadFromURIFunc: local files from disk, remote ones
// only from allowed hosts.
func (f *fileSet) read(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
	key := u.String()
	if u.Fragment != "" {
		c := *u
		c.Fragment = ""
		key = c.String()
	}
	f.lastRead = key
	if b, ok := f.data[key]; ok {
		return b, nil
	}
	var b []byte
	var err error
	switch u.Scheme {
	case "http", "https":
		b, err = f.fetch(u)
		if err != nil {
			return nil, &refReadError{url: key, remote: true, cause: err}
		}
	case "", "file":
		b, err = readRegular(filepath.FromSlash(u.Path))
		if err != nil {
			return nil, &refReadError{url: key, cause: unwrapPathErr(err)}
		}
	default:
		return nil, &refReadError{url: key, cause: fmt.Errorf("unsupported URL scheme %q", u.Scheme)}
	}
	if f.fixups != nil {
		b = f.fixups(key, b)
	}
	f.data[key] = b
	f.order = append(f.order, key)
	return b, nil
}

// errRemoteRefused marks a remote $ref to a host not in AllowRemoteHosts.
var errRemoteRefused = errors.New("remote references are not allowed")

func (f *fileSet) fetch(u *url.URL) ([]byte, error) {
	if !slices.Contains(f.opts.AllowRemoteHosts, u.Hostname()) && !slices.Contains(f.opts.AllowRemoteHosts, u.Host) {
		return nil, errRemoteRefused
	}
	ctx, cancel := context.WithTimeout(f.ctx, 30*time.Second)
	defer cancel()
	c := *u
	c.Fragment = ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("HTTP status %s", resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, maxRemoteBytes))
}

// readRegular reads a regular file of bounded size: a $ref to /dev/zero
// or a FIFO must not hang the load.
func readRegular(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if fi.Size() > maxRemoteBytes {
		return nil, fmt.Errorf("file larger than %d bytes", maxRemoteBytes)
	}
	return os.ReadFile(name)
}

// displayFile turns a kin-openapi location string into the file name shown
// to the user: the entry path as given, other files joined to its directory.
func (f *fileSet) displayFile(loc string) string {
	if loc == "" {
		return f.entry
	}
	if loc == f.entryURL().String() {
		return f.entry
	}
	u, err := url.Parse(loc)
	if err != nil {
		return loc
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		return loc
	}
	return filepath.FromSlash(u.Path)
}

// unwrapPathErr drops the "open <path>:" prefix that duplicates the file
// name already printed in the position.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// isJSONName reports whether a file name says JSON.
func isJSONName(name string) bool {
	return strings.EqualFold(filepath.Ext(name), ".json")
}
