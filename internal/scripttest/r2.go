package scripttest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// R2Bucket serves the MLCommons R2 layout the download scripts read
// (scripts/mlc-r2-download.sh) for several data sets or models:
// /metadata/NAME.uri → the base URL of NAME's files, /metadata/NAME.md5 →
// "MD5  ./FILE" per file, /bucket/NAME/FILE → the bytes. lie replaces the
// listed MD5 of a file (by its path). It returns the server (closed at
// t's cleanup) and a count of file downloads.
func R2Bucket(t testing.TB, files map[string]map[string][]byte, lie map[string]string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	var srv *httptest.Server
	// Unstarted, so that srv is set before the handler can read it.
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for name, fs := range files {
			switch r.URL.Path {
			case "/metadata/" + name + ".uri":
				fmt.Fprintf(w, "%s/bucket/%s\n", srv.URL, name)
				return
			case "/metadata/" + name + ".md5":
				for f, b := range fs {
					sum := MD5Hex(b)
					if v, ok := lie[f]; ok {
						sum = v
					}
					fmt.Fprintf(w, "%s  ./%s\n", sum, f)
				}
				return
			}
			for f, b := range fs {
				if r.URL.Path == "/bucket/"+name+"/"+f {
					hits.Add(1)
					w.Write(b)
					return
				}
			}
		}
		http.NotFound(w, r)
	}))
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &hits
}
