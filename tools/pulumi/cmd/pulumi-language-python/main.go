// Command pulumi-language-python is a small Python language host for the Pulumi CLI built in this
// module: the plugin the engine starts to run a `runtime: python` program.
//
// It exists because upstream's own host, the module
// github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3, is not served by the Go module
// proxy these machines use (every version and pseudo-version is refused). This host implements only
// what `pulumi preview`, `up`, `destroy`, `refresh`, `about` and the Automation API need of a pip
// virtualenv project: it runs the SDK's own `pulumi-language-python-exec` script (copied from the
// github.com/pulumi/pulumi/sdk/v3 module beside this binary by ../../post-build) with the project's
// virtualenv interpreter, and reads the installed packages' pulumi-plugin.json files to tell the
// engine which resource plugins the program needs. It runs Python plugins (component providers and
// policy packs, runplugin.go) and creates a missing virtualenv; it does not generate code or
// support the poetry/uv toolchains or type checkers: those RPCs answer Unimplemented.
//
// Protocol (sdk/go/common/resource/plugin: newPlugin): the engine starts the plugin with its own
// gRPC address as the last argument and reads the port we listen on from our first line of stdout;
// everything we and the Python program write afterwards goes to the engine's diagnostics.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// execScript is the SDK's program runner, expected beside this binary.
const execScript = "pulumi-language-python-exec"

// bailExitCode is the exit status with which pulumi-language-python-exec says it has already
// shown the user an actionable error, so the engine should not add one.
const bailExitCode = 32

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: pulumi-language-python [flags...] ENGINE_ADDRESS (started by the pulumi CLI)")
		os.Exit(2)
	}
	// The engine passes its address last; anything before it (e.g. -tracing, -root) we ignore.
	engine := os.Args[len(os.Args)-1]

	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pulumi-language-python:", err)
		os.Exit(1)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Exit when the engine goes away, as upstream hosts do, so no host outlives its CLI.
	go func() { _ = rpcutil.Healthcheck(ctx, engine, 5*time.Minute, cancel) }()

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pulumi-language-python:", err)
		os.Exit(1)
	}
	srv := grpc.NewServer(grpc.MaxRecvMsgSize(400 << 20))
	pulumirpc.RegisterLanguageRuntimeServer(srv, &host{engine: engine, exec: filepath.Join(filepath.Dir(self), execScript)})
	go func() { <-ctx.Done(); srv.Stop() }()

	fmt.Println(lis.Addr().(*net.TCPAddr).Port)
	if err := srv.Serve(lis); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "pulumi-language-python:", err)
		os.Exit(1)
	}
}

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engine string // the engine's gRPC address, passed on to the program
	exec   string // path of pulumi-language-python-exec
}

// python is the interpreter for a program: the project's virtualenv if Pulumi.yaml names one
// (`runtime.options.virtualenv`, relative to the project's root directory), else python3 on PATH.
// It also returns the environment the program runs with.
func python(info *pulumirpc.ProgramInfo) (string, []string, error) {
	py, extra, err := interpreter(info)
	if err != nil {
		return "", nil, err
	}
	return py, append(os.Environ(), extra...), nil
}

// venvDir is the virtualenv Pulumi.yaml names, as an absolute path; "" when it names none.
func venvDir(info *pulumirpc.ProgramInfo) (string, error) {
	if info == nil || info.GetOptions() == nil {
		return "", nil
	}
	opts := info.GetOptions().AsMap()
	if tc, ok := opts["toolchain"].(string); ok && tc != "" && tc != "pip" {
		return "", fmt.Errorf("this language host supports the pip toolchain only, not %q", tc)
	}
	venv, _ := opts["virtualenv"].(string)
	if venv != "" && !filepath.IsAbs(venv) {
		venv = filepath.Join(info.GetRootDirectory(), venv)
	}
	return venv, nil
}

// interpreter is python without the environment: the interpreter and the variables a
// virtualenv adds (VIRTUAL_ENV, PATH).
func interpreter(info *pulumirpc.ProgramInfo) (string, []string, error) {
	venv, err := venvDir(info)
	if err != nil {
		return "", nil, err
	}
	if venv == "" {
		py, err := exec.LookPath("python3")
		if err != nil {
			return "", nil, errors.New("no virtualenv in Pulumi.yaml (runtime.options.virtualenv) and no python3 on PATH")
		}
		return py, nil, nil
	}
	py := filepath.Join(venv, "bin", "python")
	if _, err := os.Stat(py); err != nil {
		return "", nil, fmt.Errorf("the virtualenv %s has no bin/python; create it (python3 -m venv %s) and install the program's requirements into it", venv, venv)
	}
	return py, []string{"VIRTUAL_ENV=" + venv, "PATH=" + filepath.Join(venv, "bin") + string(os.PathListSeparator) + os.Getenv("PATH")}, nil
}

// inspectScript prints, as JSON, the interpreter's version and the resource plugins named by the
// pulumi-plugin.json files that provider SDKs install in their top-level package folders; with the
// argument "dists", also every installed distribution (slower: it reads all package metadata).
const inspectScript = `
import glob, json, os, site, sys
out = {"python": sys.version.split()[0], "executable": sys.executable, "plugins": [], "dists": []}
for sp in site.getsitepackages():
    for f in sorted(glob.glob(os.path.join(sp, "*", "pulumi-plugin.json"))):
        try:
            with open(f) as fh:
                p = json.load(fh)
        except Exception:
            continue
        p["package"] = os.path.basename(os.path.dirname(f))
        out["plugins"].append(p)
if sys.argv[1:] == ["dists"]:
    import importlib.metadata as md
    out["dists"] = [{"name": d.metadata["Name"], "version": d.version} for d in md.distributions()]
json.dump(out, sys.stdout)
`

type inspection struct {
	Python     string `json:"python"`
	Executable string `json:"executable"`
	Plugins    []struct {
		Resource bool   `json:"resource"`
		Name     string `json:"name"`
		Version  string `json:"version"`
		Server   string `json:"server"`
		Package  string `json:"package"`
	} `json:"plugins"`
	Dists []struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"dists"`
}

func inspect(ctx context.Context, info *pulumirpc.ProgramInfo, dists bool) (*inspection, error) {
	py, env, err := python(info)
	if err != nil {
		return nil, err
	}
	args := []string{"-c", inspectScript}
	if dists {
		args = append(args, "dists")
	}
	cmd := exec.CommandContext(ctx, py, args...)
	cmd.Env = env
	cmd.Dir = info.GetProgramDirectory()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the packages of %s: %w: %s", py, err, strings.TrimSpace(stderr.String()))
	}
	var in inspection
	if err := json.Unmarshal(stdout, &in); err != nil {
		return nil, fmt.Errorf("listing the packages of %s: %w", py, err)
	}
	return &in, nil
}

func (h *host) GetRequiredPackages(ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest) (*pulumirpc.GetRequiredPackagesResponse, error) {
	in, err := inspect(ctx, req.GetInfo(), false)
	if err != nil {
		return nil, err
	}
	resp := &pulumirpc.GetRequiredPackagesResponse{}
	for _, p := range in.Plugins {
		if !p.Resource {
			continue
		}
		name := p.Name
		if name == "" { // older SDKs leave it out: the package is pulumi_<name>
			name = strings.ReplaceAll(strings.TrimPrefix(p.Package, "pulumi_"), "_", "-")
		}
		v := p.Version
		if v != "" && !strings.HasPrefix(v, "v") {
			v = "v" + v
		}
		resp.Packages = append(resp.Packages, &pulumirpc.PackageDependency{Name: name, Kind: "resource", Version: v, Server: p.Server})
	}
	return resp, nil
}

func (h *host) GetRequiredPlugins(ctx context.Context, req *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	pkgs, err := h.GetRequiredPackages(ctx, &pulumirpc.GetRequiredPackagesRequest{Info: req.GetInfo()})
	if err != nil {
		return nil, err
	}
	resp := &pulumirpc.GetRequiredPluginsResponse{}
	for _, p := range pkgs.Packages {
		resp.Plugins = append(resp.Plugins, &pulumirpc.PluginDependency{Name: p.Name, Kind: p.Kind, Version: p.Version, Server: p.Server})
	}
	return resp, nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	py, env, err := python(info)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	if _, err := os.Stat(h.exec); err != nil {
		return nil, fmt.Errorf("the SDK's %s is missing beside the language host: %w", execScript, err)
	}
	program := info.GetEntryPoint()
	if program == "" {
		program = req.GetProgram() //nolint:staticcheck // older engines
	}
	if info.GetProgramDirectory() != "" && !filepath.IsAbs(program) {
		program = filepath.Join(info.GetProgramDirectory(), program)
	}

	args := []string{h.exec,
		"--monitor", req.GetMonitorAddress(),
		"--engine", h.engine,
		"--project", req.GetProject(),
		"--stack", req.GetStack(),
		"--pwd", req.GetPwd(),
		"--dry_run", strconv.FormatBool(req.GetDryRun()),
		"--parallel", strconv.Itoa(int(req.GetParallel())),
	}
	if o := req.GetOrganization(); o != "" {
		args = append(args, "--organization", o)
	}
	if r := info.GetRootDirectory(); r != "" {
		args = append(args, "--root_directory", r)
	}
	args = append(args, program)
	args = append(args, req.GetArgs()...)

	// Config reaches the SDK through these two variables (pulumi/runtime/config.py).
	config := req.GetConfig()
	if config == nil {
		config = map[string]string{} // the SDK wants a JSON object, not null
	}
	cfg, err := json.Marshal(config)
	if err != nil {
		return nil, err
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	keys, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, err
	}
	env = append(env, "PULUMI_CONFIG="+string(cfg), "PULUMI_CONFIG_SECRET_KEYS="+string(keys), "PYTHONUNBUFFERED=1")

	cmd := exec.CommandContext(ctx, py, args...)
	cmd.Env = env
	cmd.Dir = req.GetPwd()
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return &pulumirpc.RunResponse{}, nil
	case errors.As(err, &exit) && exit.ExitCode() == bailExitCode:
		return &pulumirpc.RunResponse{Bail: true}, nil
	case errors.As(err, &exit):
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("the Python program exited with status %d", exit.ExitCode())}, nil
	default:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("running %s: %v", py, err)}, nil
	}
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

func (h *host) Handshake(context.Context, *pulumirpc.LanguageHandshakeRequest) (*pulumirpc.LanguageHandshakeResponse, error) {
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *host) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	in, err := inspect(ctx, req.GetInfo(), false)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.AboutResponse{Executable: in.Executable, Version: in.Python}, nil
}

func (h *host) GetProgramDependencies(ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest) (*pulumirpc.GetProgramDependenciesResponse, error) {
	in, err := inspect(ctx, req.GetInfo(), true)
	if err != nil {
		return nil, err
	}
	resp := &pulumirpc.GetProgramDependenciesResponse{}
	for _, d := range in.Dists {
		resp.Dependencies = append(resp.Dependencies, &pulumirpc.DependencyInfo{Name: d.Name, Version: d.Version})
	}
	return resp, nil
}

func (h *host) RuntimeOptionsPrompts(context.Context, *pulumirpc.RuntimeOptionsRequest) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

// InstallDependencies makes the virtualenv ready: nothing when it exists, else it is created and
// the directory's requirements.txt installed into it (`pulumi install`, `pulumi package add`).
func (h *host) InstallDependencies(req *pulumirpc.InstallDependenciesRequest, server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse]) error {
	closer, stdout, stderr, err := rpcutil.MakeInstallDependenciesStreams(server, req.GetIsTerminal())
	if err != nil {
		return err
	}
	defer closer.Close()
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.GetDirectory() //nolint:staticcheck // older engines
	}
	return ensureVirtualenv(server.Context(), req.GetInfo(), dir, stdout, stderr)
}

func (h *host) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}
