//===- JsonTest.cpp - The runtime's small JSON parser ---------------------===//

#include "Json.h"

#include <gtest/gtest.h>

using tessel::Json;

TEST(Json, ParsesNestedValues) {
  Json j;
  std::string err;
  ASSERT_TRUE(Json::parse(
      R"({"a": [1, -2, 3.5, true, null], "b": {"c": "x\ny\u0041"}})", j, err))
      << err;
  const Json *a = j.get("a");
  ASSERT_TRUE(a && a->isArray());
  ASSERT_EQ(a->items().size(), 5u);
  EXPECT_TRUE(a->items()[0].isInteger());
  EXPECT_EQ(a->items()[1].asInt(), -2);
  EXPECT_FALSE(a->items()[2].isInteger());
  EXPECT_DOUBLE_EQ(a->items()[2].asDouble(), 3.5);
  EXPECT_TRUE(a->items()[3].asBool());
  EXPECT_TRUE(a->items()[4].isNull());
  EXPECT_EQ(j.get("b")->get("c")->asString(), "x\nyA");
}

TEST(Json, DumpRoundTrips) {
  Json j;
  std::string err;
  std::string text = R"({"k":[1,2,{"s":"q\"uote\\"}],"n":-7,"f":0.25})";
  ASSERT_TRUE(Json::parse(text, j, err));
  EXPECT_EQ(j.dump(), text);
}

TEST(Json, ReportsLineAndColumn) {
  Json j;
  std::string err;
  EXPECT_FALSE(Json::parse("{\n  \"a\": [1, 2,, 3]\n}", j, err));
  EXPECT_NE(err.find("line 2, column 14"), std::string::npos) << err;
}

TEST(Json, RejectsMalformedInput) {
  const char *bad[] = {"",
                       "{",
                       "[1,]",
                       "{\"a\" 1}",
                       "tru",
                       "\"abc",
                       "01x",
                       "{\"a\":1,}",
                       "[1] [2]",
                       "\"\\uZZZZ\"",
                       "{\"a\":1,\"a\":2}",
                       "-"};
  for (const char *b : bad) {
    Json j;
    std::string err;
    EXPECT_FALSE(Json::parse(b, j, err)) << b;
    EXPECT_FALSE(err.empty()) << b;
  }
}

TEST(Json, BoundsNestingDepth) {
  std::string deep(100000, '[');
  Json j;
  std::string err;
  EXPECT_FALSE(Json::parse(deep, j, err));
  EXPECT_NE(err.find("nesting too deep"), std::string::npos) << err;
}
