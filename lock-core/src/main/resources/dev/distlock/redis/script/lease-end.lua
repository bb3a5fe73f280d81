-- endsFrom(now): the ms an end written now counts from (now: a TIME reply). A time is past once Redis's clock, rounded
-- down to the ms, reaches it (docs/data-layout.md, "time"), so an end a script compares against the clock later (a
-- reader's or a semaphore holder's lease end, a delayed release's end) counts from the clock rounded up: never before
-- the end the client counts from before its call. A key's expiry needs none: Redis ends a key only once its clock is
-- past the time.
local function endsFrom(now)
  return now[1] * 1000 + math.ceil(now[2] / 1000)
end
