package check

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// checker walks a tree as the checker's Loader (mlcommons/inference
// tools/submission/submission_checker/loader.py) and runs the checks of
// main.py on each scenario folder.
type checker struct {
	root  string
	round *Round
	o     Options
	rep   *Report
}

// pyJoin is os.path.join: a separator between parts unless the left part
// ends with one; an absolute part restarts the path. Unlike filepath.Join
// it keeps the parts as written, so messages show the paths the checker
// shows.
func pyJoin(parts ...string) string {
	out := ""
	for i, p := range parts {
		switch {
		case i == 0 || strings.HasPrefix(p, "/"):
			out = p
		case out == "" || strings.HasSuffix(out, "/"):
			out += p
		default:
			out += "/" + p
		}
	}
	return out
}

// pyDirname is os.path.dirname.
func pyDirname(p string) string {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return ""
	}
	head := p[:i+1]
	if strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head
}

// listDir is utils.list_dir: the sorted names of the folders in dir
// (symbolic links followed, hidden folders included).
func listDir(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if st, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && st.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// listFiles is utils.list_files: the sorted names of the regular files.
func listFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if st, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && st.Mode().IsRegular() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// names are the values of a layout template's fields.
type names struct {
	division, submitter, system, benchmark, scenario string
}

func (n names) format(template string) string {
	return strings.NewReplacer("{division}", n.division, "{submitter}", n.submitter, "{system}", n.system,
		"{benchmark}", n.benchmark, "{scenario}", n.scenario).Replace(template)
}

// path is a layout template under the root.
func (c *checker) path(template string, n names) string { return pyJoin(c.root, n.format(template)) }

// crashed records a point where the checker would stop.
func (c *checker) crashed(err error) {
	var cr *crash
	if errors.As(err, &cr) {
		c.rep.add("ERROR", "%s", cr.Error())
	} else {
		c.rep.add("ERROR", "%v", err)
	}
	c.rep.Crashes++
}

func (c *checker) run() {
	divisions, err := listDir(c.root)
	if err != nil {
		c.crashed(&crash{c.root, "FileNotFoundError", "give the results tree folder"})
		return
	}
	for _, division := range divisions {
		if !contains(validDivisions, division) {
			continue // the checker skips other folders without a word
		}
		divPath := pyJoin(c.root, division)
		submitters, err := listDir(divPath)
		if err != nil {
			c.crashed(&crash{divPath, "NotADirectoryError", "make it a folder"})
			continue
		}
		for _, submitter := range submitters {
			if c.o.Submitter != "" && submitter != c.o.Submitter {
				continue
			}
			if err := c.submitter(division, submitter); err != nil {
				c.crashed(err)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (c *checker) submitter(division, submitter string) error {
	divPath := pyJoin(c.root, division)
	resultsPath := pyJoin(divPath, submitter, "results")
	mapping := map[string]string{}
	if mm := pyJoin(divPath, submitter, "model_mapping.json"); division == "open" && exists(mm) {
		v, err := readJSONFile(mm)
		if err != nil {
			return err
		}
		if !v.isDict() {
			return &crash{mm, "AttributeError: model_mapping.json is not an object", "make it a JSON object mapping folder names to model ids"}
		}
		for _, k := range v.keys {
			if s := v.dict[k]; s.truthy() {
				mapping[k] = pyStr(s)
			}
		}
	}
	systems, err := listDir(resultsPath)
	if err != nil {
		return &crash{resultsPath, "FileNotFoundError listing it", "a submitter folder needs results/<system>/<benchmark>/<scenario>/"}
	}
	for _, system := range systems {
		if err := c.system(division, submitter, system, mapping); err != nil {
			c.crashed(err)
		}
	}
	return nil
}

// system checks one system's benchmarks.
func (c *checker) system(division, submitter, system string, mapping map[string]string) error {
	n := names{division: division, submitter: submitter, system: system}
	systemPath := pyJoin(c.root, division, submitter, "results", system)
	sysPath := c.path(c.round.Layout.System, n)
	sys := none
	if exists(sysPath) {
		v, err := readJSONFile(sysPath)
		if err != nil {
			return err
		}
		sys = v
	}
	if !sys.isDict() {
		return &crash{sysPath, "AttributeError: 'NoneType' object has no attribute 'get'", "every system folder of results/ needs its description systems/" + system + ".json (mlperf submission system-template writes one)"}
	}
	systemType := sys.get("system_type")
	if t := c.round.Layout.NameplatePower; t != "" {
		if p := c.path(t, n); exists(p) {
			data, err := os.ReadFile(p)
			var y any
			if err == nil {
				err = yaml.Unmarshal(data, &y)
			}
			if err != nil {
				return &crash{p, "yaml.YAMLError", "it is not a readable YAML file"}
			}
		}
	}
	benchmarks, err := listDir(systemPath)
	if err != nil {
		return &crash{systemPath, "OSError listing it", "make it a readable folder"}
	}
	for _, benchmark := range benchmarks {
		if err := c.benchmark(n, benchmark, sys, systemType, mapping); err != nil {
			c.crashed(err)
		}
	}
	return nil
}

// scenarioSet is Loader.check_scenarios: the required scenario folders
// missing, the unknown ones, and whether the set passes.
type scenarioSet struct {
	missing, unknown []string
	ok               bool
}

func (c *checker) checkScenarios(benchmarkPath, benchmark string, systemType value, mapping map[string]string, scenarios []string) (scenarioSet, error) {
	typ, ok := ParseSystemType(pyStr(systemType))
	if !ok || !systemType.isStr() {
		return scenarioSet{}, &crash{benchmarkPath, "ValueError: invalid system type", "the system description's system_type must be datacenter, edge or datacenter,edge (it is " + pyRepr(systemType) + ")"}
	}
	model := c.round.MLPerfModel(benchmark, mapping)
	required, listed := c.round.Required[typ][c.round.MLPerfModel(model, nil)]
	if !listed {
		fix := "round " + c.round.Name + " does not list model " + pyRepr(vStr(model)) + " for " + string(typ) + " systems"
		if !c.round.HasModel(model) {
			fix = pyRepr(vStr(benchmark)) + " is not a model of round " + c.round.Name + " (its models: " + strings.Join(c.round.Models, ", ") + "); rename the folder to the model's id, or check the tree with the round that lists it"
		} else if others := c.systemTypesOf(model); len(others) > 0 {
			fix += " (it does for " + strings.Join(others, " and ") + " systems); change the system's system_type or check with another round"
		}
		return scenarioSet{}, &crash{benchmarkPath, "TypeError: lower_list(None), the model has no required scenarios", fix}
	}
	optional := c.round.Optional[typ][c.round.MLPerfModel(model, nil)]
	lower := func(l []string) []string {
		out := make([]string, len(l))
		for i, s := range l {
			out[i] = strings.ToLower(s)
		}
		return out
	}
	req, opt, scs := lower(required), lower(optional), lower(scenarios)
	s := scenarioSet{ok: true}
	for _, r := range req {
		if !contains(scs, r) {
			s.missing = append(s.missing, r)
			s.ok = false
		}
	}
	for _, sc := range scs {
		if !contains(req, sc) && !contains(opt, sc) {
			s.unknown = append(s.unknown, sc)
			s.ok = false
		}
	}
	if contains(opt, "interactive") && contains(opt, "server") && !contains(scs, "interactive") && !contains(scs, "server") {
		s.ok = false
		s.missing = append(s.missing, "(one of) Interactive or Server")
	}
	return s, nil
}

// systemTypesOf lists the system types the round requires model for.
func (c *checker) systemTypesOf(model string) []string {
	var out []string
	for _, t := range []SystemType{Edge, Datacenter, DatacenterEdge} {
		if _, ok := c.round.Required[t][model]; ok {
			out = append(out, string(t))
		}
	}
	return out
}

// benchmark checks one benchmark folder's scenarios.
func (c *checker) benchmark(n names, benchmark string, sys, systemType value, mapping map[string]string) error {
	n.benchmark = benchmark
	benchmarkPath := pyJoin(c.root, n.division, n.submitter, "results", n.system, benchmark)
	scenarios, err := listDir(benchmarkPath)
	if err != nil {
		return &crash{benchmarkPath, "OSError listing it", "make it a readable folder"}
	}
	set := scenarioSet{ok: true}
	if n.division == "closed" || n.division == "network" {
		if set, err = c.checkScenarios(benchmarkPath, benchmark, systemType, mapping, scenarios); err != nil {
			return err
		}
	}
	for _, scenario := range scenarios {
		n.scenario = scenario
		if err := c.scenario(n, sys, mapping, set); err != nil {
			c.crashed(err)
			c.rep.Results = append(c.rep.Results, Result{Path: c.path(c.round.Layout.PerformanceLog, n)})
		}
	}
	return nil
}

// measurementsPath is Loader.get_measurement_path: in the v5.x layout the
// first file of the measurements folder named <system>..._<scenario>.json,
// else <system>....json.
func (c *checker) measurementsPath(n names) (string, error) {
	t := c.round.Layout.Measurements
	if !strings.Contains(t, "{file}") {
		return c.path(t, n), nil
	}
	dir := pyDirname(c.path(t, n))
	files, err := listFiles(dir)
	if err != nil {
		return "", &crash{dir, "FileNotFoundError listing the measurements folder", "round " + c.round.Name + " reads measurements, user.conf and README.md from " + n.division + "/" + n.submitter + "/measurements/" + n.system + "/" + n.benchmark + "/" + n.scenario + "/ (the v5.x layout; `mlperf submission --round " + c.round.Name + "` writes it)"}
	}
	file := "None"
	for _, f := range files {
		if strings.HasPrefix(f, n.system) && strings.HasSuffix(f, "_"+n.scenario+".json") {
			file = f
			break
		} else if strings.HasPrefix(f, n.system) && strings.HasSuffix(f, ".json") {
			file = f
			break
		}
	}
	return strings.Replace(c.path(t, n), "{file}", file, 1), nil
}

// submission is one scenario folder's files, as the loader yields them.
type submission struct {
	n                                  names
	model                              string // the checker's model id
	mapping                            map[string]string
	scenarioFixed                      string // the folder's name ("server" for an endpoints Online folder)
	endpoints                          bool
	perfPath, accPath, systemPath      string
	measurementsPath, measurementsDir  string
	compliancePath, powerDirPath       string
	srcPath                            string
	perf, acc                          *logFile
	accResult                          []string // accuracy.txt lines; nil when missing
	accResultFound                     bool
	accJSON                            string // "" when missing
	sys, measurements                  value
	scenarios                          scenarioSet
	testPerf                           map[string]*logFile // TEST01, TEST04
	testResult                         map[string][]string // verify files by test; absent when missing
	performanceMetric, accuracyMetrics value
	accuracyMetricsSet                 bool
}

// scenario loads and checks one scenario folder.
func (c *checker) scenario(n names, sys value, mapping map[string]string, set scenarioSet) error {
	l := c.round.Layout
	s := &submission{n: n, mapping: mapping, scenarioFixed: n.scenario, sys: sys, scenarios: set,
		testPerf: map[string]*logFile{}, testResult: map[string][]string{}}
	s.model = c.round.MLPerfModel(n.benchmark, mapping)
	s.perfPath = c.path(l.PerformanceLog, n)
	s.accPath = c.path(l.AccuracyLog, n)
	s.systemPath = pyJoin(c.root, n.division, n.submitter, "results", n.system)
	s.powerDirPath = c.path(l.PowerDir, n)
	s.compliancePath = c.path(l.Compliance, n)
	s.srcPath = c.path(l.Src, n)
	mp, err := c.measurementsPath(n)
	if err != nil {
		return err
	}
	s.measurementsPath, s.measurementsDir = mp, pyDirname(mp)
	if exists(s.perfPath) {
		if s.perf, err = readLogFile(s.perfPath); err != nil {
			return err
		}
	}
	if exists(s.accPath) {
		if s.acc, err = readLogFile(s.accPath); err != nil {
			return err
		}
	}
	if p := c.path(l.AccuracyResult, n); exists(p) {
		if s.accResult, err = readLines(p); err != nil {
			return err
		}
		s.accResultFound = true
	}
	if p := c.path(l.AccuracyJSON, n); exists(p) {
		s.accJSON = p
	}
	if exists(s.measurementsPath) {
		if s.measurements, err = readJSONFile(s.measurementsPath); err != nil {
			return err
		}
	}
	if s.perf == nil && s.acc == nil {
		s.endpoints = true
		dir := c.path(l.EndpointsScenarioDir, n)
		if exists(dir) {
			if s.perf, err = c.readEndpoints(dir, false); err != nil {
				return err
			}
			if s.acc, err = c.readEndpoints(dir, true); err != nil {
				return err
			}
		}
		if strings.ToLower(n.scenario) == "online" {
			s.scenarioFixed = "server"
		}
	}
	for _, t := range []struct{ key, kind string }{{"TEST01_perf", "perf"}, {"TEST01_acc", "acc"}, {"TEST04_perf", "perf"},
		{"TEST04_acc", "acc"}, {"TEST06_acc", "acc"}, {"TEST07_acc", "acc"}, {"TEST09_acc", "acc"}, {"TEST08_acc", "acc"}} {
		p := c.path(l.TestFiles[t.key], n)
		if !exists(p) {
			continue
		}
		test := t.key[:6]
		if t.kind == "perf" {
			lf, err := readLogFile(p)
			if err != nil {
				return err
			}
			s.testPerf[test] = lf
		} else {
			lines, err := readLines(p)
			if err != nil {
				return err
			}
			s.testResult[test] = lines
		}
	}
	// main.py builds every check before running any: the performance and
	// accuracy checks index their log at once.
	if s.perf == nil {
		return &crash{s.perfPath, "TypeError: 'NoneType' object is not subscriptable", "the scenario has an accuracy log but no performance log; copy the performance run's logs to performance/run_1/"}
	}
	if s.acc == nil {
		return &crash{s.accPath, "TypeError: 'NoneType' object is not subscriptable", "the scenario has a performance log but no accuracy log; copy the accuracy run's logs to accuracy/"}
	}
	if s.endpoints {
		if _, err := endpointsScenario(s.perf.get("effective_scenario"), s.scenarioFixed); err != nil {
			return &crash{pyJoin(c.path(l.EndpointsScenarioDir, n), "config.yaml"), "AttributeError: 'NoneType' object has no attribute 'lower'", "an endpoints run's config.yaml needs its type (offline or online), or give the LoadGen logs of the run"}
		}
	}
	c.runChecks(s)
	return nil
}

// runChecks runs main.py's checks of one submission in order and records
// its result.
func (c *checker) runChecks(s *submission) {
	valid := true
	valid = c.checkSet("performance checks", s.perfPath, c.performanceChecks(s, s.perf, s.perfPath, false)) && valid
	valid = c.checkSet("accuracy checks", s.accPath, c.accuracyChecks(s)) && valid
	valid = c.checkSet("system checks", s.systemPath, c.systemChecks(s)) && valid
	valid = c.checkSet("measurement checks", s.measurementsPath, c.measurementsChecks(s)) && valid
	valid = c.checkSet("base checks", s.powerDirPath, c.powerChecks(s)) && valid
	valid = c.checkSet("compliance check", s.compliancePath, c.complianceChecks(s)) && valid
	res := Result{Path: s.perfPath, Valid: valid}
	if valid {
		res.Metric = s.performanceMetric
		power := exists(s.powerDirPath)
		d := c.rep.systems[s.n.division]
		if d == nil {
			d = map[bool]map[string]int{}
			c.rep.systems[s.n.division] = d
		}
		if d[power] == nil {
			d[power] = map[string]int{}
		}
		d[power][s.n.system]++
		if err := c.addRow(s); err != nil {
			c.crashed(err)
			res.Valid = false
		}
	}
	c.rep.Results = append(c.rep.Results, res)
}

// check is one check method: its Python name and its body, which
// returns the Python exception it would raise as an error.
type check struct {
	name, class string
	fn          func() (bool, error)
}

// checkSet is BaseCheck.__call__: each check in order, an exception
// logged as the checker logs it, then "Some ... Checks failed".
func (c *checker) checkSet(name, path string, checks []check) bool {
	valid := true
	for _, ch := range checks {
		ok, err := ch.fn()
		if err != nil {
			c.rep.add("ERROR", "Execution occurred in running check %s. Running %s in %s", path, ch.name, ch.class)
			ok = false
		}
		valid = valid && ok
	}
	if !valid {
		c.rep.add("ERROR", "Some %s Checks failed for: %s", name, path)
	}
	return valid
}
