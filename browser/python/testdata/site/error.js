// a script whose error is reported with its place
function fail() {
  throw new Error("boom");
}
fail();
