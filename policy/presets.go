package policy

// HuggingFaceMessage is the original ToolManager's text for a scrape of a
// Hugging Face dataset or space.
const HuggingFaceMessage = "You are trying to scrape a Hugging Face dataset for answers, please do not use the scrape tool for this purpose."

// preset returns the rules of a named rule set that configs enable with
// "presets".
func preset(name string) ([]Rule, bool) {
	switch name {
	// The original's one rule, applied before the call instead of after:
	// no tool may be pointed at a Hugging Face dataset or space, where the
	// answers to benchmark questions can be found.
	case "huggingface-datasets":
		return []Rule{
			{Action: Deny, URLHost: "huggingface.co", URLPath: "/datasets", Message: HuggingFaceMessage},
			{Action: Deny, URLHost: "huggingface.co", URLPath: "/spaces", Message: HuggingFaceMessage},
			{Action: Deny, URLHost: "*.huggingface.co", URLPath: "/datasets", Message: HuggingFaceMessage},
			{Action: Deny, URLHost: "*.huggingface.co", URLPath: "/spaces", Message: HuggingFaceMessage},
		}, true
	}
	return nil, false
}

// PresetNames lists the known presets.
func PresetNames() []string {
	return []string{"huggingface-datasets"}
}
