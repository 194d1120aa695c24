package main

import (
	"strings"
	"testing"
)

func TestReportPrintsWhatGoTestPrintsAndTimesTopLevelTests(t *testing.T) {
	in := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:1: chatter of a passing test\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- PASS: TestA (1.50s)\n"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":1.5}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"run","Package":"p","Test":"TestB/sub"}
{"Action":"output","Package":"p","Test":"TestB/sub","Output":"=== RUN   TestB/sub\n"}
{"Action":"output","Package":"p","Test":"TestB/sub","Output":"    b_test.go:9: broken\n"}
{"Action":"output","Package":"p","Test":"TestB/sub","Output":"    --- FAIL: TestB/sub (0.20s)\n"}
{"Action":"fail","Package":"p","Test":"TestB/sub","Elapsed":0.2}
{"Action":"output","Package":"p","Test":"TestB","Output":"--- FAIL: TestB (2.00s)\n"}
{"Action":"fail","Package":"p","Test":"TestB","Elapsed":2}
{"Action":"output","Package":"p","Output":"FAIL\n"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t3.600s\n"}
{"Action":"fail","Package":"p","Elapsed":3.6}
{"Action":"output","Package":"q","Output":"PASS\n"}
{"Action":"output","Package":"q","Output":"ok  \tq\t0.100s\n"}
{"Action":"pass","Package":"q","Elapsed":0.1}
not json at all
`
	var out strings.Builder
	tests, failed, err := report(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if !failed {
		t.Error("a failed test not reported as a failure")
	}
	want := "    b_test.go:9: broken\n    --- FAIL: TestB/sub (0.20s)\n--- FAIL: TestB (2.00s)\nFAIL\nFAIL\tp\t3.600s\nok  \tq\t0.100s\nnot json at all\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	if len(tests) != 2 || tests[0].name != "p TestA" || tests[0].elapsed != 1.5 || tests[1].name != "p TestB" {
		t.Errorf("timings: %+v", tests)
	}
}

func TestReportOfAPassingRunIsNoFailure(t *testing.T) {
	in := `{"Action":"output","Package":"q","Output":"ok  \tq\t0.100s\n"}
{"Action":"pass","Package":"q","Elapsed":0.1}
`
	var out strings.Builder
	if _, failed, err := report(strings.NewReader(in), &out); failed || err != nil {
		t.Errorf("failed %v, err %v", failed, err)
	}
}

func TestReportShowsATestsSummaryLineThoughItPassed(t *testing.T) {
	in := `{"Action":"run","Package":"w","Test":"TestSimulatedLoops"}
{"Action":"output","Package":"w","Test":"TestSimulatedLoops","Output":"simulation: 2003 seeds in 31.2s, 0 failed\n"}
{"Action":"output","Package":"w","Test":"TestSimulatedLoops","Output":"    chatter\n"}
{"Action":"pass","Package":"w","Test":"TestSimulatedLoops","Elapsed":31.2}
`
	var out strings.Builder
	if _, _, err := report(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "simulation: 2003 seeds in 31.2s, 0 failed\n" {
		t.Errorf("printed %q", out.String())
	}
}
