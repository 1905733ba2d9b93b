#!/usr/bin/env bash
# The commands of the pull-request workflow (yardstick-review.yml), in one
# script so that the workflow and its test run the same thing.
#
#   review.sh comment BASE [OUT]   validate the definitions this change
#                                  touches and write the review comment
#   review.sh post FILE            post FILE on the pull request, or update
#                                  the comment an earlier push posted
#
# comment runs in a git checkout of the head, with BASE (the base branch's
# commit) fetched. For every .cue file under $YARDSTICK_DEFS (default
# experiments) that differs between the merge base of BASE and HEAD, it runs
# `yardstick validate --format github` (its ::error lines on stdout become
# annotations on file:line:col) and `yardstick diff --format markdown
# --base MERGE_BASE FILE`, and writes the Markdown to OUT (default
# yardstick-review.md) under a hidden marker line. It exits 1 when a
# definition is invalid, after writing the comment. Neither command runs
# anything a definition names.
#
# post needs gh, GH_TOKEN, GITHUB_REPOSITORY and PR (the pull request's
# number): it looks for a comment of the pull request that starts with the
# marker and was written by the workflow's account (github-actions[bot],
# or $YARDSTICK_COMMENT_AUTHOR) and edits it; only when there is none does
# it add one.
#
# File names come from the pull request: every one is quoted, passed
# after "--", and shown in the comment as a code span (md_code); the
# output of yardstick goes in fenced blocks whose fence no line of it can
# close (fenced), so nothing a definition or its name holds becomes
# Markdown, HTML or an @-mention.
set -euo pipefail

YARDSTICK=${YARDSTICK:-yardstick}
DEFS=${YARDSTICK_DEFS:-experiments}
MARKER='<!-- yardstick-review -->'
# The account the workflow's token posts as.
AUTHOR=${YARDSTICK_COMMENT_AUTHOR:-github-actions[bot]}

usage() {
	echo "usage: review.sh comment BASE [OUT] | review.sh post FILE" >&2
	exit 2
}

comment() {
	local base=$1 out=$2 mb basec f invalid=0 n=0
	# BASE is a revision, never an option, and must name a commit.
	basec=$(git rev-parse --verify --quiet --end-of-options "$base^{commit}") ||
		{ echo "review.sh comment: $base: not a commit" >&2; exit 2; }
	mb=$(git merge-base "$basec" HEAD)
	# The diff's heading names the base branch instead of its merge base's
	# hash, when the name is a plain one.
	BASE_NAME=$mb
	if [[ $base =~ ^[A-Za-z0-9][A-Za-z0-9._/-]*$ ]]; then
		BASE_NAME=$base
	fi
	local body
	body=$(mktemp)
	trap 'rm -f "$body"' RETURN
	while IFS= read -r -d '' st && IFS= read -r -d '' f; do
		n=$((n + 1))
		if [ "$st" = D ]; then
			printf '### %s\n\nRemoved by this change.\n\n' "$(md_code "$f")" >>"$body"
			continue
		fi
		if ! definition "$mb" "$st" "$f" >>"$body"; then
			invalid=$((invalid + 1))
		fi
	done < <(git diff -z --name-status --no-renames "$mb" HEAD -- "$DEFS/*.cue")
	{
		echo "$MARKER"
		echo "## yardstick review"
		echo
		if ((n == 0)); then
			echo "No definition under $(md_code "$DEFS/") changed."
		elif ((invalid)); then
			echo "**$invalid of $n changed definition(s) invalid**: the check fails; the errors are annotated on the files."
		else
			echo "$n changed definition(s), all valid."
		fi
		echo
		cat "$body"
	} >"$out"
	((invalid == 0))
}

# md_code TEXT: TEXT (a file name, which the pull request chose) as one
# Markdown code span, in which Markdown, HTML and @-mentions are inert:
# control characters (a newline would end the heading) as \xNN, as
# safetext.Line writes them, and a fence of backticks longer than any run
# of them in TEXT.
md_code() {
	local s=$1 out= c i run=0 longest=0
	local LC_ALL=C
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		if [[ $c == '`' ]]; then
			run=$((run + 1))
			((run > longest)) && longest=$run
		else
			run=0
		fi
		if [[ $c == [[:cntrl:]] ]]; then
			printf -v c '\\x%02x' "'$c"
		fi
		out+=$c
	done
	# as safetext.Line: no percent-encoded line break, no "##["
	out=${out//'%0A'/'\x250A'}
	out=${out//'%0a'/'\x250a'}
	out=${out//'%0D'/'\x250D'}
	out=${out//'%0d'/'\x250d'}
	out=${out//'##['/'#\x23['}
	local fence
	printf -v fence '%*s' $((longest + 1)) ''
	fence=${fence// /\`}
	if [[ $out == '`'* || $out == *'`' ]]; then
		out=" $out "
	fi
	printf '%s%s%s' "$fence" "$out" "$fence"
}

# fenced FILE: FILE as a fenced code block whose fence is longer than any
# run of backticks in it, so that no line of FILE can close it: what a
# definition wrote stays code (no Markdown, HTML or @-mention).
fenced() {
	local n fence
	n=$(awk '{ while (match($0, /`+/)) { if (RLENGTH > m) m = RLENGTH; $0 = substr($0, RSTART + RLENGTH) } } END { print (m >= 3 ? m + 1 : 3) }' "$1")
	printf -v fence '%*s' "$n" ''
	fence=${fence// /\`}
	printf '%s\n' "$fence"
	cat "$1"
	# a last line without its newline
	[ -z "$(tail -c 1 "$1")" ] || echo
	printf '%s\n' "$fence"
}

# definition MERGE_BASE STATUS FILE: validate FILE (annotations on stdout
# go to the job's log; the comment gets the findings as text) and print
# its section of the comment. FILE follows "--": a name that starts with
# a dash is not an option.
definition() {
	local mb=$1 st=$2 f=$3 tmp name
	name=$(md_code "$f")
	tmp=$(mktemp)
	if ! "$YARDSTICK" validate -q --format github -- "$f" 2>"$tmp" >&3; then
		printf '### %s\n\n**Invalid**: `yardstick validate` found\n\n%s\n\n' "$name" "$(fenced "$tmp")"
		rm -f "$tmp"
		return 1
	fi
	if [ "$st" = A ]; then
		"$YARDSTICK" plan -- "$f" >"$tmp" || true
		printf '### %s\n\nA new definition.\n\n<details><summary>yardstick plan</summary>\n\n%s\n\n</details>\n\n' "$name" "$(fenced "$tmp")"
		rm -f "$tmp"
		return 0
	fi
	local md
	if ! md=$("$YARDSTICK" diff --format markdown --base "$mb" -- "$f" 2>"$tmp"); then
		# The head is valid; the base side did not plan (invalid there, or
		# several experiments in the file): say so instead of a diff.
		printf '### %s\n\nValid; no diff: `yardstick diff --base` failed:\n\n%s\n\n' "$name" "$(fenced "$tmp")"
		rm -f "$tmp"
		return 0
	fi
	rm -f "$tmp"
	# The heading names the base branch, not its merge base's hash.
	printf '%s\n\n' "${md/"\`$mb:"/"\`$BASE_NAME:"}"
}

post() {
	local file=$1 id
	: "${GITHUB_REPOSITORY:?}" "${PR:?}"
	local first=
	IFS= read -r first <"$file" || true
	[ "$first" = "$MARKER" ] || { echo "review.sh post: $file does not start with $MARKER" >&2; exit 1; }
	# Only a comment of the workflow's own account is edited: anyone can
	# write one that starts with the marker.
	id=$(gh api --paginate "repos/$GITHUB_REPOSITORY/issues/$PR/comments" \
		--jq ".[] | select(.user.login == \"$AUTHOR\" and (.body | startswith(\"$MARKER\"))) | .id")
	id=${id%%$'\n'*}
	if [ -n "$id" ]; then
		gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" -F "body=@$file" >/dev/null
		echo "updated comment $id"
	else
		gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$PR/comments" -F "body=@$file" >/dev/null
		echo "posted a comment"
	fi
}

case ${1-} in
comment)
	[ "$#" -ge 2 ] && [ "$#" -le 3 ] || usage
	exec 3>&1
	comment "$2" "${3:-yardstick-review.md}"
	;;
post)
	[ "$#" -eq 2 ] || usage
	post "$2"
	;;
*) usage ;;
esac
