"""Collection: what a respondent's post goes through (admission, rate limit, the cache of
open surveys, the memo scope) and the tally vector it is counted into."""
