package main

// Plugins written in Python: component providers (`pulumi package add <dir>`, a directory with
// PulumiPlugin.yaml `runtime: python` and a __main__.py) and policy packs (`pulumi preview
// --policy-pack <dir>`, PulumiPolicy.yaml `runtime: python`). The engine asks the language host of
// the plugin's runtime to run it (RunPlugin) and talks to it over gRPC; everything the plugin
// prints comes back to the engine as a stream, then its exit code.
//
// Pulumi v3.274.0 (sdk/go/common/resource/plugin/plugin.go, execPlugin): a resource plugin prints
// the port it serves on as its first line of stdout; for an analyzer the engine's address is the
// first argument. A Python policy pack runs as `python -u -m pulumi.policy <args> <pack dir>`, and
// needs the stack's configuration before it starts, which the engine sends only over gRPC: the
// host answers the engine with sdk.PolicyProxy, passes the configuration it receives to the pack
// as environment, and proxies every other call to the pack once it serves.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/pulumi/pulumi/sdk/v3"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
)

// pluginCommand is the interpreter's argument list for a plugin of the given kind.
func pluginCommand(kind, dir string, args []string) []string {
	if kind == "analyzer" {
		// pulumi_policy's entry point takes the engine's address, then the pack's folder.
		return append(append([]string{"-u", "-m", "pulumi.policy"}, args...), dir)
	}
	// `python DIR` runs DIR/__main__.py with DIR first on sys.path, as upstream's host does.
	return append([]string{"-u", dir}, args...)
}

// policyEnv is the stack's configuration as the Python SDK reads it from the environment
// (pulumi/runtime/settings.py and config.py) when no language host started the process.
func policyEnv(cfg *pulumirpc.AnalyzerStackConfigureRequest) ([]string, error) {
	if cfg == nil {
		return nil, nil
	}
	var env []string
	add := func(k, v string) {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	add("PULUMI_ORGANIZATION", cfg.GetOrganization())
	add("PULUMI_PROJECT", cfg.GetProject())
	add("PULUMI_STACK", cfg.GetStack())
	add("PULUMI_DRY_RUN", strconv.FormatBool(cfg.GetDryRun()))
	config := cfg.GetConfig()
	if config == nil {
		config = map[string]string{}
	}
	text, err := json.Marshal(config)
	if err != nil {
		return nil, err
	}
	add("PULUMI_CONFIG", string(text))
	secret := cfg.GetConfigSecretKeys()
	if secret == nil {
		secret = []string{}
	}
	keys, err := json.Marshal(secret)
	if err != nil {
		return nil, err
	}
	add("PULUMI_CONFIG_SECRET_KEYS", string(keys))
	return env, nil
}

// RunPlugin runs a resource plugin or a policy pack written in Python with the interpreter of the
// plugin's virtualenv (PulumiPlugin.yaml / PulumiPolicy.yaml `runtime.options.virtualenv`).
func (h *host) RunPlugin(req *pulumirpc.RunPluginRequest, server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse]) error {
	ctx := server.Context()
	info := req.GetInfo()
	dir := info.GetProgramDirectory()
	if dir == "" {
		dir = req.GetProgram() //nolint:staticcheck // older engines
	}
	if dir == "" {
		return errors.New("RunPlugin: no plugin directory")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(req.GetPwd(), dir)
	}
	py, extra, err := interpreter(info)
	if err != nil {
		return err
	}
	closer, stdout, stderr, err := rpcutil.MakeRunPluginStreams(server, false)
	if err != nil {
		return err
	}
	defer closer.Close()

	// The environment the engine gives the plugin, then the virtualenv's (VIRTUAL_ENV, PATH).
	env := req.GetEnv()
	if len(env) == 0 {
		env = os.Environ()
	}
	env = append(append(append([]string{}, env...), extra...), "PYTHONUNBUFFERED=1")

	var proxy *sdk.PolicyProxy
	if req.GetKind() == "analyzer" {
		proxy, stdout, err = sdk.NewPolicyProxy(ctx, stdout)
		if err != nil {
			return fmt.Errorf("starting the policy pack proxy: %w", err)
		}
		cfg, err := proxy.AwaitConfiguration(ctx)
		if err != nil {
			return fmt.Errorf("waiting for the stack's configuration: %w", err)
		}
		extra, err := policyEnv(cfg)
		if err != nil {
			return err
		}
		env = append(env, extra...)
	}

	cmd := exec.CommandContext(ctx, py, pluginCommand(req.GetKind(), dir, req.GetArgs())...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		if proxy != nil {
			proxy.Abort(err)
		}
		return fmt.Errorf("starting %s: %w", py, err)
	}
	if proxy != nil {
		err = proxy.Attach(ctx, cmd) // waits for the pack to exit
	} else {
		err = cmd.Wait()
	}
	return sendExit(server, err)
}

// sendExit reports how the plugin ended: its exit code, or the error that kept it from running.
func sendExit(server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse], err error) error {
	code := 0
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		return err
	}
	return server.Send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: int32(code)}})
}

// ensureVirtualenv creates the virtualenv Pulumi.yaml names when it is missing and installs the
// directory's requirements.txt into it, as upstream's host does for the pip toolchain; a
// virtualenv that exists is used as it is, and without one python3 on PATH serves.
func ensureVirtualenv(ctx context.Context, info *pulumirpc.ProgramInfo, dir string, stdout, stderr io.Writer) error {
	venv, err := venvDir(info)
	if err != nil || venv == "" {
		return err
	}
	if _, err := os.Stat(filepath.Join(venv, "bin", "python")); err == nil {
		return nil
	}
	py3, err := exec.LookPath("python3")
	if err != nil {
		return fmt.Errorf("creating the virtualenv %s needs python3 on PATH", venv)
	}
	run := func(name string, args ...string) error {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = stdout, stderr
		return cmd.Run()
	}
	if err := run(py3, "-m", "venv", venv); err != nil {
		return fmt.Errorf("creating the virtualenv %s: %w", venv, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "requirements.txt")); err == nil {
		if err := run(filepath.Join(venv, "bin", "python"), "-m", "pip", "install", "-r", "requirements.txt"); err != nil {
			return fmt.Errorf("installing requirements.txt into %s: %w", venv, err)
		}
	}
	return nil
}
