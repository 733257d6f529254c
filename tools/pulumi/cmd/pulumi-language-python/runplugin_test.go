package main

// The host's plugin RPCs, each against a real Python interpreter (python3 on PATH) and a real gRPC
// connection, as the engine makes them.

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// serve starts the host on loopback and returns a client of it.
func serve(t *testing.T) pulumirpc.LanguageRuntimeClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	pulumirpc.RegisterLanguageRuntimeServer(srv, &host{engine: "127.0.0.1:1"})
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return pulumirpc.NewLanguageRuntimeClient(conn)
}

// fakeVenv is a virtualenv folder whose bin/python is python3 on PATH.
func fakeVenv(t *testing.T) string {
	t.Helper()
	py3, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	venv := filepath.Join(t.TempDir(), "venv")
	if err := os.MkdirAll(filepath.Join(venv, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(py3, filepath.Join(venv, "bin", "python")); err != nil {
		t.Fatal(err)
	}
	return venv
}

func info(t *testing.T, dir, venv string) *pulumirpc.ProgramInfo {
	t.Helper()
	opts, err := structpb.NewStruct(map[string]any{"virtualenv": venv, "toolchain": "pip"})
	if err != nil {
		t.Fatal(err)
	}
	return &pulumirpc.ProgramInfo{RootDirectory: dir, ProgramDirectory: dir, EntryPoint: ".", Options: opts}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// drain reads a RunPlugin stream to its end: stdout, stderr and the exit code.
func drain(t *testing.T, stream grpc.ServerStreamingClient[pulumirpc.RunPluginResponse]) (string, string, int32) {
	t.Helper()
	var out, errOut strings.Builder
	code := int32(-1)
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return out.String(), errOut.String(), code
		}
		if err != nil {
			t.Fatalf("RunPlugin stream: %v (stdout %q, stderr %q)", err, out.String(), errOut.String())
		}
		switch o := msg.GetOutput().(type) {
		case *pulumirpc.RunPluginResponse_Stdout:
			out.Write(o.Stdout)
		case *pulumirpc.RunPluginResponse_Stderr:
			errOut.Write(o.Stderr)
		case *pulumirpc.RunPluginResponse_Exitcode:
			code = o.Exitcode
		}
	}
}

func TestRunPluginRunsAResourcePluginsMainWithItsArgsAndReportsItsExit(t *testing.T) {
	client := serve(t)
	dir := t.TempDir()
	venv := fakeVenv(t)
	write(t, filepath.Join(dir, "__main__.py"), `import os, sys
print("args", sys.argv[1:])
print("venv", os.environ.get("VIRTUAL_ENV"), "from-engine", os.environ.get("FROM_ENGINE"))
print("oops", file=sys.stderr)
sys.exit(3)
`)
	stream, err := client.RunPlugin(context.Background(), &pulumirpc.RunPluginRequest{
		Pwd: dir, Args: []string{"127.0.0.1:9", "x"}, Env: []string{"FROM_ENGINE=yes"},
		Info: info(t, dir, venv), Kind: "resource", Name: "raygang",
	})
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := drain(t, stream)
	if code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
	want := fmt.Sprintf("args ['127.0.0.1:9', 'x']\nvenv %s from-engine yes\n", venv)
	if out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	if errOut != "oops\n" {
		t.Errorf("stderr %q", errOut)
	}
}

func TestRunPluginWithoutAVirtualenvFailsWithTheReason(t *testing.T) {
	client := serve(t)
	dir := t.TempDir()
	stream, err := client.RunPlugin(context.Background(), &pulumirpc.RunPluginRequest{
		Pwd: dir, Info: info(t, dir, filepath.Join(dir, "missing")), Kind: "resource",
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = stream.Recv()
	if err == nil || !strings.Contains(err.Error(), "has no bin/python") {
		t.Fatalf("got %v, want the missing virtualenv named", err)
	}
}

// fakeAnalyzer answers GetAnalyzerInfo, standing in for the policy pack's own server.
type fakeAnalyzer struct {
	pulumirpc.UnimplementedAnalyzerServer
}

func (fakeAnalyzer) GetAnalyzerInfo(context.Context, *emptypb.Empty) (*pulumirpc.AnalyzerInfo, error) {
	return &pulumirpc.AnalyzerInfo{Name: "fake-pack"}, nil
}

func (fakeAnalyzer) ConfigureStack(context.Context, *pulumirpc.AnalyzerStackConfigureRequest) (*pulumirpc.AnalyzerStackConfigureResponse, error) {
	return &pulumirpc.AnalyzerStackConfigureResponse{}, nil
}

func TestRunPluginStartsAPolicyPackWithTheStacksConfigurationAndProxiesToIt(t *testing.T) {
	// The pack's server: what `python -m pulumi.policy` would serve.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pack := grpc.NewServer()
	pulumirpc.RegisterAnalyzerServer(pack, fakeAnalyzer{})
	go func() { _ = pack.Serve(lis) }()
	defer pack.Stop()

	// A stand-in `pulumi.policy` module: records its arguments and environment, prints the
	// pack's port as the real one prints its own, and serves until it is stopped.
	stub := t.TempDir()
	record := filepath.Join(t.TempDir(), "record.txt")
	write(t, filepath.Join(stub, "pulumi", "__init__.py"), "")
	write(t, filepath.Join(stub, "pulumi", "policy", "__init__.py"), "")
	write(t, filepath.Join(stub, "pulumi", "policy", "__main__.py"), `import os, sys, time
with open(os.environ["RECORD"], "w") as f:
    f.write(repr(sys.argv[1:]) + "\n")
    for k in ("PULUMI_PROJECT", "PULUMI_STACK", "PULUMI_ORGANIZATION", "PULUMI_DRY_RUN", "PULUMI_CONFIG"):
        f.write(k + "=" + os.environ.get(k, "") + "\n")
print(os.environ["PACK_PORT"], flush=True)
time.sleep(60)
`)
	client := serve(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := client.RunPlugin(ctx, &pulumirpc.RunPluginRequest{
		Pwd: dir, Args: []string{"127.0.0.1:7"}, Kind: "analyzer", Name: "raygang-policies",
		Env: []string{"PYTHONPATH=" + stub, "RECORD=" + record,
			fmt.Sprintf("PACK_PORT=%d", lis.Addr().(*net.TCPAddr).Port)},
		Info: info(t, dir, fakeVenv(t)),
	})
	if err != nil {
		t.Fatal(err)
	}
	// The proxy's port comes first on stdout, as the engine reads a plugin's port. The stream
	// ends with an error when the test cancels the pack at its end: not a failure.
	ports := make(chan string, 1)
	go func() {
		for {
			msg, err := stream.Recv()
			if err != nil {
				return
			}
			if out := msg.GetStdout(); out != nil {
				if line, _, ok := strings.Cut(string(out), "\n"); ok {
					select {
					case ports <- line:
					default:
					}
				}
			}
		}
	}()
	var port string
	select {
	case port = <-ports:
	case <-time.After(30 * time.Second):
		t.Fatal("no port from the policy proxy")
	}
	conn, err := grpc.NewClient("127.0.0.1:"+port, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	analyzer := pulumirpc.NewAnalyzerClient(conn)
	_, err = analyzer.ConfigureStack(ctx, &pulumirpc.AnalyzerStackConfigureRequest{
		Project: "raygang", Stack: "dev", Organization: "org", DryRun: true,
		Config: map[string]string{"raygang:preflight": "warn"},
	})
	if err != nil {
		t.Fatal(err)
	}
	callCtx, done := context.WithTimeout(ctx, 30*time.Second)
	defer done()
	got, err := analyzer.GetAnalyzerInfo(callCtx, &emptypb.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetName() != "fake-pack" {
		t.Errorf("proxied GetAnalyzerInfo named %q", got.GetName())
	}
	text, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	if lines[0] != fmt.Sprintf("['127.0.0.1:7', '%s']", dir) {
		t.Errorf("arguments %s, want the engine's address, then the pack's folder", lines[0])
	}
	for _, kv := range []string{"PULUMI_PROJECT=raygang", "PULUMI_STACK=dev", "PULUMI_ORGANIZATION=org",
		"PULUMI_DRY_RUN=true", `PULUMI_CONFIG={"raygang:preflight":"warn"}`} {
		if !strings.Contains(string(text), kv+"\n") {
			t.Errorf("the pack's environment lacks %s:\n%s", kv, text)
		}
	}
}

func TestInstallDependenciesCreatesAMissingVirtualenvAndKeepsAnExistingOne(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH")
	}
	client := serve(t)
	dir := t.TempDir()
	venv := filepath.Join(dir, "venv")
	for round := 0; round < 2; round++ {
		stream, err := client.InstallDependencies(context.Background(), &pulumirpc.InstallDependenciesRequest{
			Info: info(t, dir, venv), IsPlugin: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := stream.Recv(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if _, err := os.Stat(filepath.Join(venv, "bin", "python")); err != nil {
			t.Fatalf("round %d: no virtualenv: %v", round, err)
		}
	}
}
