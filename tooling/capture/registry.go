package main

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The loopback registry: Debian's docker-registry (distribution 2.8) serves
// on registryAddr with its storage in the work folder; two proxies written
// here sit in front of it, one that throttles what it sends (slowAddr) and
// one that answers 500 to manifest requests for a short window after the
// first one (flakyAddr). Pods name the proxies' addresses in their images,
// so every pull crosses one of them. Nothing listens on another address.
const (
	registryAddr = "127.0.0.1:5000"
	slowAddr     = "127.0.0.1:5001"
	flakyAddr    = "127.0.0.1:5002"

	slowImage  = slowAddr + "/kl-slow:1"
	flakyImage = flakyAddr + "/kl-flaky:1"

	// slowRate is the throttle's rate in bytes per second for every
	// response body (the busybox layer is about 2 MB).
	slowRate = 128 << 10
	// flakyWindow: manifest requests are answered 500 from the first one
	// for this long, so that one pull of the kubelet fails (containerd
	// sends HEAD and may retry with GET within the same pull) and the
	// next one, after the kubelet's image back-off, succeeds.
	flakyWindow = 3 * time.Second
)

func registryConfig(work string) string {
	return fmt.Sprintf(`version: 0.1
log:
  level: info
  fields:
    service: registry
storage:
  filesystem:
    rootdirectory: %s/registry
  delete:
    enabled: true
http:
  addr: %s
`, work, registryAddr)
}

// startRegistry starts docker-registry, pushes the two images and starts
// the proxies. The proxies record every request in scenario events through
// note.
func startRegistry(work string, note func(scenario, what string)) (*proc, []*http.Server, error) {
	cfg := filepath.Join(work, "registry.yml")
	if err := writeFile(cfg, registryConfig(work)); err != nil {
		return nil, nil, err
	}
	reg, err := start("docker-registry", filepath.Join(work, "logs", "registry.log"), "docker-registry", "serve", cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := waitFor(30*time.Second, func() bool {
		r, e := http.Get("http://" + registryAddr + "/v2/")
		if e == nil {
			r.Body.Close()
			return r.StatusCode == 200
		}
		return false
	}); err != nil {
		return reg, nil, fmt.Errorf("docker-registry on %s: %w", registryAddr, err)
	}
	for _, im := range []struct{ repo, marker string }{{"kl-slow", "slow"}, {"kl-flaky", "flaky"}} {
		layer, conf, man, err := imageParts(im.marker)
		if err != nil {
			return reg, nil, err
		}
		if err := pushImage(registryAddr, im.repo, "1", layer, conf, man); err != nil {
			return reg, nil, fmt.Errorf("push %s: %w", im.repo, err)
		}
		log.Printf("pushed %s/%s:1 (layer %d bytes)", registryAddr, im.repo, len(layer))
	}
	target, _ := url.Parse("http://" + registryAddr)
	var srvs []*http.Server
	slow := httputil.NewSingleHostReverseProxy(target)
	slow.ModifyResponse = func(r *http.Response) error {
		r.Body = &throttled{r: r.Body, rate: slowRate, start: time.Now()}
		return nil
	}
	s1, err := serve(slowAddr, logged("image-pull-slow", note, slow))
	if err != nil {
		return reg, srvs, err
	}
	srvs = append(srvs, s1)
	s2, err := serve(flakyAddr, logged("image-pull-flaky", note, flaky(httputil.NewSingleHostReverseProxy(target))))
	if err != nil {
		return reg, srvs, err
	}
	srvs = append(srvs, s2)
	return reg, srvs, nil
}

func serve(addr string, h http.Handler) (*http.Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &http.Server{Handler: h}
	go func() { _ = s.Serve(l) }()
	return s, nil
}

// statusWriter remembers the status code and counts the body bytes.
type statusWriter struct {
	http.ResponseWriter
	code int
	n    int64
}

func (w *statusWriter) WriteHeader(c int) { w.code = c; w.ResponseWriter.WriteHeader(c) }
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = 200
	}
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// logged records each request as an event of the scenario: "registry:
// METHOD path -> status, N bytes, took D".
func logged(scenario string, note func(scenario, what string), h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		note(scenario, fmt.Sprintf("registry: %s %s -> %d, %d bytes, started %s, took %s",
			r.Method, r.URL.Path, sw.code, sw.n, t0.UTC().Format("15:04:05.000"), time.Since(t0).Round(time.Millisecond)))
	})
}

// flaky answers 500 to manifest requests from the first one for
// flakyWindow, and forwards everything else.
func flaky(next http.Handler) http.Handler {
	var mu sync.Mutex
	var first time.Time
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/manifests/") {
			mu.Lock()
			if first.IsZero() {
				first = time.Now()
			}
			fail := time.Since(first) < flakyWindow
			mu.Unlock()
			if fail {
				http.Error(w, "injected failure (capture harness)", http.StatusInternalServerError)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// throttled reads no faster than rate bytes per second since start.
type throttled struct {
	r     io.ReadCloser
	rate  int64
	start time.Time
	n     int64
}

func (t *throttled) Read(b []byte) (int, error) {
	if len(b) > 16<<10 {
		b = b[:16<<10]
	}
	n, err := t.r.Read(b)
	t.n += int64(n)
	due := t.start.Add(time.Duration(float64(t.n) / float64(t.rate) * float64(time.Second)))
	if d := time.Until(due); d > 0 {
		time.Sleep(d)
	}
	return n, err
}

func (t *throttled) Close() error { return t.r.Close() }

// pushImage uploads the blobs and the manifest through the registry API
// (monolithic uploads).
func pushImage(addr, repo, tag string, layer, conf, man []byte) error {
	for _, b := range [][]byte{layer, conf} {
		r, err := http.Post("http://"+addr+"/v2/"+repo+"/blobs/uploads/", "", nil)
		if err != nil {
			return err
		}
		r.Body.Close()
		if r.StatusCode != http.StatusAccepted {
			return fmt.Errorf("start upload: %s", r.Status)
		}
		loc, err := r.Location()
		if err != nil {
			return err
		}
		q := loc.Query()
		q.Set("digest", digestOf(b))
		loc.RawQuery = q.Encode()
		req, _ := http.NewRequest(http.MethodPut, loc.String(), bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/octet-stream")
		r, err = http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		r.Body.Close()
		if r.StatusCode != http.StatusCreated {
			return fmt.Errorf("upload blob: %s", r.Status)
		}
	}
	req, _ := http.NewRequest(http.MethodPut, "http://"+addr+"/v2/"+repo+"/manifests/"+tag, bytes.NewReader(man))
	req.Header.Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusCreated {
		return fmt.Errorf("put manifest: %s: %s", r.Status, body)
	}
	return nil
}
