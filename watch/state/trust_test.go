package state

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestTrustIsByPathAndExactBytes(t *testing.T) {
	root := filepath.Join(t.TempDir(), "state")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	a, b := Sum([]byte("check make\n")), Sum([]byte("check make \n"))
	if ok, err := IsTrusted(root, "/p/.ralph/config", a); ok || err != nil {
		t.Fatalf("nothing trusted yet: %v %v", ok, err)
	}
	if err := Trust(root, "/p/.ralph/config", a, now); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, sum string
		want      bool
	}{
		{"/p/.ralph/config", a, true},
		{"/p/.ralph/config", b, false}, // one byte more
		{"/q/.ralph/config", a, false}, // the same bytes elsewhere
	} {
		if ok, err := IsTrusted(root, tc.path, tc.sum); ok != tc.want || err != nil {
			t.Errorf("IsTrusted(%s, %.8s) = %v, %v; want %v", tc.path, tc.sum, ok, err, tc.want)
		}
	}
	if err := Trust(root, "/p/.ralph/config", b, now); err != nil { // trusted again after an edit: one entry
		t.Fatal(err)
	}
	list, _ := TrustList(root)
	if len(list) != 1 || list[0].SHA256 != b || list[0].Trusted != "2026-01-02T03:04:05" {
		t.Errorf("list %+v", list)
	}
	for path, mode := range map[string]os.FileMode{root: 0o700, filepath.Join(root, TrustFile): 0o600} {
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != mode {
			t.Errorf("%s: %v, want mode %v", path, err, mode)
		}
	}
	if found, err := Revoke(root, "/p/.ralph/config"); !found || err != nil {
		t.Errorf("Revoke: %v %v", found, err)
	}
	if found, _ := Revoke(root, "/p/.ralph/config"); found {
		t.Errorf("revoked twice")
	}
	if ok, _ := IsTrusted(root, "/p/.ralph/config", b); ok {
		t.Errorf("still trusted after revoke")
	}
}

// Two trust commands at once both count.
func TestTrustingAtOnceLosesNoEntry(t *testing.T) {
	root := t.TempDir()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := Trust(root, filepath.Join("/p", string(rune('a'+i))), Sum(nil), time.Now()); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if list, err := TrustList(root); len(list) != 20 || err != nil {
		t.Errorf("%d entries (%v), want 20", len(list), err)
	}
}

func TestACorruptTrustFileIsAnErrorNotTrust(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, TrustFile), []byte(`{"/p": "x"`), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, err := IsTrusted(root, "/p", "x"); ok || err == nil {
		t.Errorf("corrupt file: trusted %v, err %v", ok, err)
	}
}
