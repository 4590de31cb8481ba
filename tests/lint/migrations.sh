#!/bin/sh
# The migrations' two rules (ARCHITECTURE.md): db_migrate applies the versions above
# the highest applied one, so numbers only grow (a new migration takes a number above
# every released one; renumbering would make existing databases skip it), and a
# released migration's text never changes (databases already ran it). Released ones
# are listed with their sha256 in tests/cases/migrations/released.sha256; a new
# migration is added there when it is released.
dir=sql/migrations
released=tests/cases/migrations/released.sha256
status=0

# Every released migration is still there, unchanged.
while read -r sum name; do
    if [ ! -f "$dir/$name" ]; then
        echo "migrations: released $name is missing from $dir"
        status=1
    elif [ "$(sha256sum < "$dir/$name" | cut -d' ' -f1)" != "$sum" ]; then
        echo "migrations: released $name changed; add a new migration instead"
        status=1
    fi
done < "$released"

# Numbers are NNNN_what.sql, each used once; unreleased ones come after the released.
top_released=$(sed 's/.* //; s/_.*//' "$released" | sort -n | tail -n 1)
seen=""
for f in "$dir"/*.sql; do
    name=$(basename "$f")
    num=$(echo "$name" | sed -n 's/^\([0-9][0-9][0-9][0-9]\)_[a-z0-9_]*\.sql$/\1/p')
    if [ -z "$num" ]; then
        echo "migrations: $name is not NNNN_what.sql"
        status=1
        continue
    fi
    case " $seen " in *" $num "*)
        echo "migrations: number $num is used twice"
        status=1 ;;
    esac
    seen="$seen $num"
    if ! grep -q " $name\$" "$released" && [ "$num" -le "$top_released" ]; then
        echo "migrations: new $name must be numbered above $top_released, the last released"
        status=1
    fi
done

if [ "$status" -eq 0 ]; then
    echo "migrations: numbers grow, released texts unchanged"
fi
exit "$status"
