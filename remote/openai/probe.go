package openai

// Start-up checks: every endpoint answers, and with FormAuto whether it
// takes a prompt of token ids.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// infoPath is what Check and Name ask of an endpoint: its models
// (/v1/models), or SGLang's model info.
func (s *SUT) infoPath(ep *endpoint) string {
	if s.cfg.API == SGLang {
		return ep.base + "/get_model_info"
	}
	return ep.base + "/v1/models"
}

// get GETs path with the endpoint's credentials.
func (s *SUT) get(ctx context.Context, ep *endpoint, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	if ep.auth != "" {
		req.Header.Set("Authorization", ep.auth)
	}
	return s.client.Do(req)
}

// Check asks every endpoint for its models (GET /v1/models; SGLang:
// /get_model_info): an unreachable server or an error answer is an
// error, so that a run fails at start rather than sample by sample. With
// FormAuto it then sends each endpoint one request of Config.ProbeIDs
// (max_tokens 1): prompts go as ids when every endpoint takes them, as
// text otherwise (FormNote says which and why). An id outside the
// vocabulary in a probe's answer is an error.
func (s *SUT) Check(ctx context.Context) error {
	for _, ep := range s.eps {
		resp, err := s.get(ctx, ep, s.infoPath(ep))
		if err != nil {
			return fmt.Errorf("openai: the server at %s does not answer: %s", ep.base, s.redact(err.Error()))
		}
		if resp.StatusCode != http.StatusOK {
			msg := s.errorText(resp.Body)
			resp.Body.Close()
			return fmt.Errorf("openai: %s: HTTP %d: %s", s.infoPath(ep), resp.StatusCode, msg)
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
	}
	if s.form != FormAuto {
		return nil
	}
	var refused []string
	for _, ep := range s.eps {
		ok, why, err := s.probe(ctx, ep)
		if err != nil {
			return err
		}
		if !ok {
			refused = append(refused, ep.base+" ("+why+")")
		}
	}
	if len(refused) == 0 {
		s.form, s.formNote = FormIDs, "the servers take token ids"
		return nil
	}
	s.form, s.formNote = FormText, "refused token ids: "+strings.Join(refused, "; ")
	return nil
}

// FormNote says how prompts are sent and why, for the logs.
func (s *SUT) FormNote() string {
	what := "text"
	switch {
	case s.form == FormIDs && s.cfg.API == SGLang:
		what = "token ids (input_ids)"
	case s.form == FormIDs:
		what = "token ids"
	case s.cfg.Chat && s.cfg.API == Completions:
		what = "text, as a user message to /v1/chat/completions (the server applies the model's chat template)"
	}
	return fmt.Sprintf("prompts sent as %s (%s)", what, s.formNote)
}

// probe sends ep one greedy, not streamed, one-token completion of
// ProbeIDs and reports whether it took them: HTTP 200 yes, 400 or 422
// (the prompt's type refused) no, with the server's reason; anything
// else is an error.
func (s *SUT) probe(ctx context.Context, ep *endpoint) (bool, string, error) {
	b := []byte(`{"model":`)
	b = appendString(b, s.cfg.Model)
	b = append(b, `,"prompt":`...)
	b = appendIDs(b, s.cfg.ProbeIDs)
	b = append(b, `,"max_tokens":1,"temperature":0,"return_token_ids":true}`...)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.url, bytes.NewReader(b))
	if err != nil {
		return false, "", fmt.Errorf("openai: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if ep.auth != "" {
		req.Header.Set("Authorization", ep.auth)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return false, "", fmt.Errorf("openai: %s: asking whether the server takes token ids: %s", ep.url, s.redact(err.Error()))
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return false, "HTTP " + strconv.Itoa(resp.StatusCode) + ": " + s.errorText(resp.Body), nil
	default:
		return false, "", fmt.Errorf("openai: %s: asking whether the server takes token ids: HTTP %d: %s", ep.url, resp.StatusCode, s.errorText(resp.Body))
	}
	var out struct {
		Choices []struct {
			TokenIDs []int64 `json:"token_ids"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil {
		return false, "", fmt.Errorf("openai: %s: the answer to a one-token completion is not a completion: %v", ep.url, err)
	}
	if v := s.cfg.Vocab; v > 0 {
		for _, c := range out.Choices {
			for _, id := range c.TokenIDs {
				if id < 0 || id >= int64(v) {
					return false, "", fmt.Errorf("openai: %s: the server returned token id %d, outside the benchmark's vocabulary of %d ids: it serves another model than the benchmark's (check the server's model and --served-model)", ep.url, id, v)
				}
			}
		}
	}
	return true, "", nil
}

// Name asks every endpoint for its models (one network round trip each)
// and returns a description of the servers for the logs.
func (s *SUT) Name() string {
	parts := make([]string, len(s.eps))
	for i, ep := range s.eps {
		parts[i] = s.name(ep)
	}
	return fmt.Sprintf("%s server(s) %s (model %s)", s.cfg.API, strings.Join(parts, ", "), s.cfg.Model)
}

func (s *SUT) name(ep *endpoint) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := s.get(ctx, ep, s.infoPath(ep))
	if err != nil {
		return fmt.Sprintf("%s (unreachable: %v)", ep.base, s.redact(err.Error()))
	}
	defer resp.Body.Close()
	var m struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		ModelPath string `json:"model_path"`
	}
	json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m)
	ids := []string{}
	for _, d := range m.Data {
		ids = append(ids, d.ID)
	}
	if m.ModelPath != "" {
		ids = append(ids, m.ModelPath)
	}
	return fmt.Sprintf("%s serving %s", ep.base, s.redact(strings.Join(ids, ",")))
}
