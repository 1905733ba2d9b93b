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
# marker and edits it; only when there is none does it add one.
set -euo pipefail

YARDSTICK=${YARDSTICK:-yardstick}
DEFS=${YARDSTICK_DEFS:-experiments}
MARKER='<!-- yardstick-review -->'

usage() {
	echo "usage: review.sh comment BASE [OUT] | review.sh post FILE" >&2
	exit 2
}

comment() {
	local base=$1 out=$2 mb f invalid=0 n=0
	mb=$(git merge-base "$base" HEAD)
	BASE_NAME=$base
	local body
	body=$(mktemp)
	trap 'rm -f "$body"' RETURN
	while IFS= read -r -d '' st && IFS= read -r -d '' f; do
		n=$((n + 1))
		if [ "$st" = D ]; then
			printf '### `%s`\n\nRemoved by this change.\n\n' "$f" >>"$body"
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
			echo "No definition under \`$DEFS/\` changed."
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

# definition MERGE_BASE STATUS FILE: validate FILE (annotations on stdout
# go to the job's log; the comment gets the findings as text) and print
# its section of the comment.
definition() {
	local mb=$1 st=$2 f=$3 findings
	findings=$(mktemp)
	if ! "$YARDSTICK" validate -q --format github "$f" 2>"$findings" >&3; then
		printf '### `%s`\n\n**Invalid**: `yardstick validate` found\n\n```\n%s\n```\n\n' "$f" "$(cat "$findings")"
		rm -f "$findings"
		return 1
	fi
	rm -f "$findings"
	if [ "$st" = A ]; then
		printf '### `%s`\n\nA new definition.\n\n<details><summary>yardstick plan</summary>\n\n```\n%s\n```\n\n</details>\n\n' "$f" "$("$YARDSTICK" plan "$f")"
		return 0
	fi
	local md err
	err=$(mktemp)
	if ! md=$("$YARDSTICK" diff --format markdown --base "$mb" "$f" 2>"$err"); then
		# The head is valid; the base side did not plan (invalid there, or
		# several experiments in the file): say so instead of a diff.
		printf '### `%s`\n\nValid; no diff: `yardstick diff --base` failed:\n\n```\n%s\n```\n\n' "$f" "$(cat "$err")"
		rm -f "$err"
		return 0
	fi
	rm -f "$err"
	# The heading names the base branch, not its merge base's hash.
	printf '%s\n\n' "${md/"\`$mb:"/"\`$BASE_NAME:"}"
}

post() {
	local file=$1 id
	: "${GITHUB_REPOSITORY:?}" "${PR:?}"
	local first=
	IFS= read -r first <"$file" || true
	[ "$first" = "$MARKER" ] || { echo "review.sh post: $file does not start with $MARKER" >&2; exit 1; }
	id=$(gh api --paginate "repos/$GITHUB_REPOSITORY/issues/$PR/comments" \
		--jq ".[] | select(.body | startswith(\"$MARKER\")) | .id")
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
