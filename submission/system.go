package submission

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/internal/boundedread"
)

// fillIn marks the system fields the machine cannot tell; the checker
// accepts any non-empty value, a reviewer will not.
const fillIn = "unknown: fill in"

// SystemTemplate returns a system description with every field the
// checker requires (SYSTEM_DESC_REQUIRED_FIELDS), filled with what this
// machine tells: CPU model and core count, memory, operating system,
// framework. systemType is edge, datacenter or "datacenter,edge". CPU-only
// systems carry accelerators_per_node 0 and N/A accelerator fields.
func SystemTemplate(name, systemType string) map[string]any {
	cpu := cpuModel()
	mem := memTotal()
	return map[string]any{
		"division": "closed", "submitter": "", "status": "available", "system_name": name,
		"system_type": systemType, "system_type_detail": systemType, "number_of_nodes": "1",
		"host_processor_model_name": cpu, "host_processors_per_node": "1",
		"host_processor_core_count": strconv.Itoa(runtime.NumCPU()), "host_processor_frequency": "",
		"host_processor_caches": "", "host_processor_interconnect": "",
		"host_memory_capacity": mem, "host_memory_configuration": fillIn,
		"host_storage_capacity": fillIn, "host_storage_type": fillIn,
		"host_networking": "N/A", "host_networking_topology": "N/A", "host_network_card_count": "0",
		"accelerators_per_node": "0", "accelerator_model_name": "N/A", "accelerator_memory_capacity": "N/A",
		"accelerator_frequency": "", "accelerator_host_interconnect": "N/A", "accelerator_interconnect": "N/A",
		"accelerator_interconnect_topology": "", "accelerator_memory_configuration": "N/A",
		"accelerator_on-chip_memories": "", "cooling": fillIn,
		"framework":        "mlperf-go (Go " + strings.TrimPrefix(runtime.Version(), "go") + "), ONNX Runtime",
		"operating_system": osName(), "other_software_stack": "Go " + strings.TrimPrefix(runtime.Version(), "go") + ", " + Version(),
		"hw_notes": "", "sw_notes": "",
	}
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH + " CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH + " CPU"
}

func memTotal() string {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return fillIn
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseFloat(fields[1], 64)
			if err == nil {
				return fmt.Sprintf("%.0f GB", kb/1024/1024)
			}
		}
	}
	return fillIn
}

func osName() string {
	b, err := os.ReadFile("/etc/os-release")
	if err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
				return strings.Trim(v, `"`)
			}
		}
	}
	return runtime.GOOS
}

// maxSystemFile bounds a system description file: the checker's fields
// take a few KB.
const maxSystemFile = 1 << 20

// ReadSystem reads a system description JSON file (--system): a JSON
// object, read only when path is a regular file of at most 1 MiB (a
// device such as /dev/zero or a FIFO is refused, not read without end).
// name is the file's base name without .json, which names the system
// folder when no other name is given.
func ReadSystem(path string) (desc map[string]any, name string, err error) {
	data, err := boundedread.File(path, "--system", maxSystemFile)
	if err != nil {
		return nil, "", fmt.Errorf("submission: %w", err)
	}
	if err := json.Unmarshal(data, &desc); err != nil || desc == nil {
		if err == nil {
			err = errors.New("null")
		}
		return nil, "", fmt.Errorf("submission: --system %s is not a system description JSON object (%v); write one with `mlperf submission system-template > %s` and edit it", path, err, path)
	}
	return desc, strings.TrimSuffix(filepath.Base(path), ".json"), nil
}
