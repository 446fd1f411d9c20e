package llama2

import (
	"strings"
	"testing"
)

func TestCheckPrompt(t *testing.T) {
	spec := Configs[size70B].Spec()
	long := make([]int32, 3073)
	for _, tc := range []struct {
		p    []int32
		want string
	}{
		{[]int32{1, 1, 518, 29871}, ""},
		{nil, "empty tok_input"},
		{[]int32{1, 32000}, "id 32000 at position 1 is outside the model's vocabulary of 32000"},
		{[]int32{1, -1}, "outside the model's vocabulary"},
		{long, "3073 prompt ids + 1024 new tokens exceed the model's context of 4096"},
		{long[:3072], ""},
	} {
		err := checkPrompt(tc.p, spec, maxNewTokensDefault)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("len %d: %v, want %q", len(tc.p), err, tc.want)
		}
	}
}
