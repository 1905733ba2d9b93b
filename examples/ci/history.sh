#!/usr/bin/env bash
# The pull-request step that decides a benchmark run against main's recent
# runs (see yardstick-history.yml), in one script so that the workflow and
# its test run the same thing.
#
#   history.sh comment N RUN [OUT]   decide RUN against the last N earlier
#                                    runs of its plan and write the comment
#   history.sh post FILE             post FILE on the pull request, or update
#                                    the comment an earlier push posted
#
# comment runs `yardstick compare --against-history N RUN --format
# markdown` with the runs under $YARDSTICK_RESULTS (default results: main's
# runs, restored from wherever the workflow keeps them, and RUN, this pull
# request's), and writes it to OUT (default yardstick-history.md) under a
# hidden marker line. It exits 1 when a row is worse, after writing the
# comment. yardstick escapes what it prints of the run directories.
#
# post needs gh, GH_TOKEN, GITHUB_REPOSITORY and PR, and edits the comment
# of the workflow's account (github-actions[bot], or
# $YARDSTICK_COMMENT_AUTHOR) that starts with the marker; only when there is
# none does it add one.
set -euo pipefail

YARDSTICK=${YARDSTICK:-yardstick}
RESULTS=${YARDSTICK_RESULTS:-results}
MARKER='<!-- yardstick-history -->'
AUTHOR=${YARDSTICK_COMMENT_AUTHOR:-github-actions[bot]}

usage() {
	echo "usage: history.sh comment N RUN [OUT] | history.sh post FILE" >&2
	exit 2
}

comment() {
	local n=$1 run=$2 out=$3 body
	[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "history.sh comment: N $n: want a count of runs" >&2; exit 2; }
	body=$(mktemp)
	trap 'rm -f "$body"' RETURN
	"$YARDSTICK" compare --against-history "$n" --results "$RESULTS" --format markdown -- "$run" >"$body"
	{
		echo "$MARKER"
		cat "$body"
	} >"$out"
	! grep -q ': worse: ' "$body"
}

post() {
	local file=$1 id first=
	: "${GITHUB_REPOSITORY:?}" "${PR:?}"
	IFS= read -r first <"$file" || true
	[ "$first" = "$MARKER" ] || { echo "history.sh post: $file does not start with $MARKER" >&2; exit 1; }
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
	[ "$#" -ge 3 ] && [ "$#" -le 4 ] || usage
	comment "$2" "$3" "${4:-yardstick-history.md}"
	;;
post)
	[ "$#" -eq 2 ] || usage
	post "$2"
	;;
*) usage ;;
esac
