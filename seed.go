package toolgate

// SeedServerTools is one server in the original ToolManager's
// get_all_tool_definitions shape, where a failing server's error sits inside
// its tool list: {"name": "s", "tools": [{"error": "Unable to fetch tools: ..."}]}.
type SeedServerTools struct {
	Name  string           `json:"name"`
	Tools []map[string]any `json:"tools"`
}

// SeedDefinitions converts tool definitions to the original's shape, for
// callers written against it.
func SeedDefinitions(defs []ServerTools) []SeedServerTools {
	out := make([]SeedServerTools, len(defs))
	for i, d := range defs {
		out[i] = SeedServerTools{Name: d.Name, Tools: make([]map[string]any, 0, len(d.Tools))}
		if d.Error != "" {
			out[i].Tools = append(out[i].Tools, map[string]any{"error": "Unable to fetch tools: " + d.Error})
			continue
		}
		for _, t := range d.Tools {
			out[i].Tools = append(out[i].Tools, map[string]any{"name": t.Name, "description": t.Description, "schema": t.Schema})
		}
	}
	return out
}
