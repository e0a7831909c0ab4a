package toolgate

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/policy"
)

// ruleKeys are the JSON keys of a policy rule.
var ruleKeys = []string{"action", "name", "server", "tool", "urlHost", "urlPath", "urlScheme",
	"args", "arg", "regex", "agent", "role", "message"}

// decodePolicy decodes the toolgate.policy section, naming the rule index
// and field of every error.
func decodePolicy(raw json.RawMessage) (policy.Config, error) {
	var pc policy.Config
	obj, err := parseObject(raw)
	if err != nil {
		return pc, fmt.Errorf("toolgate.policy: want an object: %v", err)
	}
	if err := checkKeys("toolgate.policy", obj, "presets", "rules"); err != nil {
		return pc, err
	}
	if r, ok := obj.values["presets"]; ok {
		if err := decodeField("toolgate.policy.presets", r, &pc.Presets); err != nil {
			return pc, err
		}
	}
	r, ok := obj.values["rules"]
	if !ok {
		return pc, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(r, &items); err != nil {
		return pc, fmt.Errorf("toolgate.policy.rules: want an array of rules, got %s", jsonKind(r))
	}
	var errs []error
	for i, item := range items {
		rule, err := decodeRule(fmt.Sprintf("toolgate.policy.rules[%d]", i), item)
		errs = append(errs, err)
		pc.Rules = append(pc.Rules, rule)
	}
	return pc, errors.Join(errs...)
}

func decodeRule(path string, raw json.RawMessage) (policy.Rule, error) {
	var rule policy.Rule
	obj, err := parseObject(raw)
	if err != nil {
		return rule, fmt.Errorf("%s: want an object: %v", path, err)
	}
	if err := checkKeys(path, obj, ruleKeys...); err != nil {
		return rule, err
	}
	fields := map[string]any{
		"action": &rule.Action, "name": &rule.Name, "server": &rule.Server, "tool": &rule.Tool,
		"urlHost": &rule.URLHost, "urlPath": &rule.URLPath, "urlScheme": &rule.URLScheme,
		"args": &rule.Args, "arg": &rule.Arg, "regex": &rule.Regex, "agent": &rule.Agent,
		"role": &rule.Role, "message": &rule.Message,
	}
	var errs []error
	for _, key := range obj.keys {
		errs = append(errs, decodeField(path+"."+key, obj.values[key], fields[key]))
	}
	return rule, errors.Join(errs...)
}

// compilePolicy compiles the policy section, with errors named from the
// config's root.
func compilePolicy(pc policy.Config) (*policy.Engine, error) {
	e, err := policy.Compile(pc)
	if err != nil {
		return nil, fmt.Errorf("toolgate.policy.%w", err)
	}
	return e, nil
}
