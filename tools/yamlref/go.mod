module raygang.local/tools/yamlref

go 1.26

// The versions kubectl v1.35.4 builds with (k8s.io/kubectl v0.35.4's go.mod): the YAML
// typing under test is go-yaml v2's, reached through sigs.k8s.io/yaml.
require (
	go.yaml.in/yaml/v2 v2.4.3 // indirect
	k8s.io/apimachinery v0.35.4
	sigs.k8s.io/yaml v1.6.0 // indirect
)

require sigs.k8s.io/json v0.0.0-20250730193827-2d320260d730 // indirect
