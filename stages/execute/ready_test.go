package execute

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestProbeFollowsNoRedirect: a target that answers its ready or vary
// probe with a redirect does not send the probe anywhere else.
func TestProbeFollowsNoRedirect(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
	}))
	defer other.Close()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
	}))
	defer target.Close()

	c := probeClient(2*time.Second, &http.Transport{Proxy: nil})
	resp, err := c.Get(target.URL + "/ready")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Errorf("status %d, want the redirect itself (302)", resp.StatusCode)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the probe followed the redirect: %d request(s) reached the other server", n)
	}
}
