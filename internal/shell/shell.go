// Package shell holds what packer shows the shell it runs in, beside the
// commands' own output: the version line, the completion scripts, and a
// standard output that remembers its write errors, so that `packer plan >
// /dev/full` fails instead of reporting success.
package shell

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime/debug"
	"strings"
	"sync"
)

// Version describes the build: the module version ("(devel)" for a build from
// a work tree, as the go command says) and the VCS commit it was built from,
// "+modified" when the work tree had uncommitted changes, "commit unknown"
// when the build recorded none (go test, go build -buildvcs=false).
func Version() string {
	info, _ := debug.ReadBuildInfo()
	return FormatVersion(info)
}

// FormatVersion is Version for the given build information; nil is a build
// that recorded nothing.
func FormatVersion(info *debug.BuildInfo) string {
	version, commit, modified := "", "unknown", false
	if info != nil {
		version = info.Main.Version
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if version == "" {
		version = "(devel)"
	}
	if modified {
		commit += "+modified"
	}
	return version + ", commit " + commit
}

// Shells lists the shells Completion writes a script for.
var Shells = []string{"bash", "zsh", "fish"}

// Completion returns the completion script for shell, for the program prog.
// The bash and zsh scripts ask the program itself for the words that may
// follow (urfave/cli's hidden --generate-bash-completion flag), except after
// "--", where they complete file names and run nothing; fish's script
// is written whole by fish, which the caller passes in (urfave/cli's
// App.ToFishCompletion).
func Completion(shell, prog string, fish func() (string, error)) (string, error) {
	switch shell {
	case "bash":
		return strings.ReplaceAll(bashScript, "PROG", prog), nil
	case "zsh":
		return strings.ReplaceAll(zshScript, "PROG", prog), nil
	case "fish":
		return fish()
	case "":
		return "", fmt.Errorf("name the shell: %s", strings.Join(Shells, ", "))
	}
	return "", fmt.Errorf("unknown shell %q (want %s)", shell, strings.Join(Shells, ", "))
}

// bashScript completes a word from what the program prints for the words
// before it; files are the fallback (-o default), as for any command.
const bashScript = `# bash completion for PROG; load it with: source <(PROG completion bash)
_PROG_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" opts
  local -a before=("${COMP_WORDS[@]:0:COMP_CWORD}")
  local w
  # After "--" the words are a command's (the one profile runs): complete
  # file names, and run nothing, not even PROG.
  for w in "${before[@]:1}"; do
    if [[ "$w" == -- ]]; then
      COMPREPLY=()
      return
    fi
  done
  # After a flag, the word is most likely its value (a file for most of
  # packer's flags): leave it to the default, file names.
  if [[ "$prev" == -* && "$prev" != *=* && "$cur" != -* && COMP_CWORD -gt 1 ]]; then
    COMPREPLY=()
    return
  fi
  if [[ "$cur" == -* ]]; then
    opts=$("${before[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${before[@]}" --generate-bash-completion 2>/dev/null)
  fi
  # urfave/cli offers its help command under every command; below the top
  # level it only crowds the real subcommands.
  if (( COMP_CWORD > 1 )); then
    opts=$(printf '%s\n' $opts | grep -vx -e help -e h)
  fi
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o bashdefault -o default -F _PROG_complete PROG
`

// zshScript does the same for zsh, where urfave/cli prints "name:usage"
// lines (it looks at $0) that _describe shows as a menu.
const zshScript = `#compdef PROG
# zsh completion for PROG; load it with: source <(PROG completion zsh)
_PROG_complete() {
  local -a opts
  local cur=${words[-1]} w
  # After "--" the words are a command's: complete file names, run nothing.
  for w in "${(@)words[2,-2]}"; do
    if [[ "$w" == -- ]]; then
      _files
      return
    fi
  done
  if [[ "$cur" == -* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _PROG_complete PROG
`

// Writer passes writes on to W and remembers the first that failed. Commands
// print with fmt.Fprintf and table renderers that drop write errors; the
// program checks Err once at the end instead.
type Writer struct {
	W   io.Writer
	mu  sync.Mutex
	err error
}

// Write writes b to W; after a failure it writes nothing and returns the
// first error again, so a half-written output does not go on.
func (w *Writer) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.W.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	w.err = err
	return n, err
}

// Err is the first write error, as "writing standard output: no space left on
// device" (the file name of an *fs.PathError left out: it is the output
// itself), or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		return nil
	}
	err := w.err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("writing standard output: %w", err)
}
