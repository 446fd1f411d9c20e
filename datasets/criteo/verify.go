package criteo

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// MD5 are the published checksums of the data set's files
// (mlcommons/training recommendation_v2/torchrec_dlrm
// md5sums_MLPerf_v2_synthetic_multi_hot_sparse_dataset.txt and
// md5sums_preprocessed_criteo_click_logs_dataset.txt).
var MD5 = map[string]string{
	DenseFile:  "cdf7af87cbc7e9b468c0be46b1767601",
	LabelsFile: "dd68f93301812026ed6f58dfb0757fa7",
	SparseFile: "c46b7e31ec6f2f8768fa60bdfc0f6e40",
}

// FileMD5 is the MD5 of a file, read in a stream.
func FileMD5(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.CopyBuffer(h, f, make([]byte, 4<<20)); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Verify checks the data set in dir: the files open in the expected
// format (see Open) with rows rows (0: any), then each file's MD5 is
// compared with the published one. It writes one line per file to w and
// returns an error naming the files that differ.
func Verify(dir string, rows int, w io.Writer) error {
	ds, err := Open(dir, Options{WholeDay: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "criteo: %s: %d rows (%d evaluated), multi-hot sizes %v\n", dir, ds.FileRows, (ds.FileRows+1)/2, ds.MultiHot)
	n, mh := ds.FileRows, ds.MultiHot
	ds.Close()
	if rows > 0 && n != rows {
		return fmt.Errorf("criteo: verify: %s holds %d rows, want %d (day 23 has %d; -n 0 accepts any count)", dir, n, rows, DayRows)
	}
	if mh != MultiHot {
		return fmt.Errorf("criteo: verify: multi-hot sizes %v, want the MLPerf data set's %v", mh, MultiHot)
	}
	var bad []string
	for _, name := range []string{DenseFile, LabelsFile, SparseFile} {
		sum, err := FileMD5(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("criteo: verify: %w", err)
		}
		state := "OK"
		if sum != MD5[name] {
			state = "DIFFERS from the published " + MD5[name]
			bad = append(bad, name)
		}
		fmt.Fprintf(w, "%s  %s  %s\n", sum, name, state)
	}
	if len(bad) > 0 {
		return fmt.Errorf("criteo: verify: %v differ from the published MD5s (a synthetic or damaged data set; download it again with download_dataset.sh)", bad)
	}
	return nil
}
