package submission

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// checkName refuses a name that is to become one path component of the
// tree (a division, submitter, system, benchmark or scenario folder, or a
// system description's file name) unless it is one clean component: not
// empty, not . or .., without a path separator, a control character or a
// leading dot or dash.
func checkName(what, name string) error {
	bad := ""
	switch {
	case name == "":
		bad = "is empty"
	case name == "." || name == "..":
		bad = "is not a folder name"
	case strings.ContainsAny(name, `/\`):
		bad = "holds a path separator"
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "-"):
		bad = "starts with " + name[:1]
	case len(name) > 200:
		bad = "is longer than 200 bytes"
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) >= 0:
		bad = "holds a control character"
	}
	if bad != "" {
		return fmt.Errorf("submission: %s %q %s; it names a folder of the results tree, so it must be one plain name (letters, digits, - _ . and spaces)", what, name, bad)
	}
	return nil
}

// dirWriter writes files under root and nowhere else: every path it is
// given is relative and stays under root, and no folder on the way is a
// symbolic link that leads out of root (resolved, as the kernel would
// follow it).
type dirWriter struct {
	root, real string
}

func newDirWriter(root string) (*dirWriter, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("submission: --out: %w", err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("submission: --out: %w", err)
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return nil, fmt.Errorf("submission: --out: %w", err)
	}
	return &dirWriter{root: root, real: real}, nil
}

// inside reports whether a resolved absolute path is root or under it.
func (w *dirWriter) inside(p string) bool {
	return p == w.real || strings.HasPrefix(p, w.real+string(filepath.Separator))
}

// path returns root/rel after checking rel.
func (w *dirWriter) path(rel string) (string, error) {
	clean := filepath.Clean(rel)
	if filepath.IsAbs(rel) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("submission: %s would be outside --out %s", rel, w.root)
	}
	return filepath.Join(w.root, clean), nil
}

// mkdir makes root/rel one level at a time, refusing a symbolic link on
// the way that resolves outside root.
func (w *dirWriter) mkdir(rel string) (string, error) {
	if _, err := w.path(rel); err != nil {
		return "", err
	}
	cur := w.root
	for _, part := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		if part == "." || part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", fmt.Errorf("submission: %w", err)
			}
			continue
		case err != nil:
			return "", fmt.Errorf("submission: %w", err)
		case st.Mode()&fs.ModeSymlink != 0:
			real, err := filepath.EvalSymlinks(cur)
			if err != nil {
				return "", fmt.Errorf("submission: %s is a broken symbolic link; remove it", cur)
			}
			if real, _ = filepath.Abs(real); !w.inside(real) {
				return "", fmt.Errorf("submission: %s is a symbolic link to %s, outside --out %s; remove it or give another --out", cur, real, w.root)
			}
			if st, err = os.Stat(cur); err != nil {
				return "", fmt.Errorf("submission: %w", err)
			}
		}
		if !st.IsDir() {
			return "", fmt.Errorf("submission: %s is a file where the tree needs a folder; remove it or give another --out", cur)
		}
	}
	return filepath.Join(w.root, filepath.Clean(rel)), nil
}

// writeFile writes data to root/rel (its folder made with mkdir),
// refusing to write through a symbolic link.
func (w *dirWriter) writeFile(rel string, data []byte) error {
	dir, err := w.mkdir(filepath.Dir(rel))
	if err != nil {
		return err
	}
	p := filepath.Join(dir, filepath.Base(rel))
	if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("submission: %s is a symbolic link; the tree is written with plain files only, remove it", p)
	} else if err == nil && st.IsDir() {
		return fmt.Errorf("submission: %s is a folder where the tree needs a file; remove it", p)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("submission: %w", err)
	}
	return nil
}

// copyFiles copies the named files of src into root/rel.
func (w *dirWriter) copyFiles(src, rel string, names ...string) error {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			return fmt.Errorf("submission: %s: %w", src, err)
		}
		if err := w.writeFile(filepath.Join(rel, n), b); err != nil {
			return err
		}
	}
	return nil
}

// copyTree copies the regular files and folders under src into root/rel
// (a symbolic link in src is copied as the file it points to; special
// files are refused).
func (w *dirWriter) copyTree(src, rel string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("submission: %w", err)
		}
		r, _ := filepath.Rel(src, p)
		target := filepath.Join(rel, r)
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("submission: %w", err)
		}
		switch {
		case st.IsDir():
			_, err := w.mkdir(target)
			return err
		case st.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return fmt.Errorf("submission: %w", err)
			}
			return w.writeFile(target, b)
		}
		return fmt.Errorf("submission: %s is not a regular file; a results tree holds files and folders only", p)
	})
}
