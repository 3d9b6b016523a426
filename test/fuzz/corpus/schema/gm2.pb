
ò
benchmark_message2.protobenchmarks.proto2"Ñ
GoogleMessage2
field1 (	Rfield1
field3 (Rfield3
field4 (Rfield4
field30 (Rfield30
field75K (:falseRfield75
field6 (	Rfield6
field2 (Rfield2
field21 (:0Rfield21
field71G (Rfield71
field25 (Rfield25
field109m (:0Rfield109
field210“ (:0Rfield210
field211” (:0Rfield211
field212‘ (:0Rfield212
field213’ (:0Rfield213
field216ÿ (:0Rfield216
field217Ÿ (:0Rfield217
field218⁄ (:0Rfield218
field220‹ (:0Rfield220
field221› (:0Rfield221
field222ﬁ (:0Rfield222
field63? (Rfield63@
group1
 (
2(.benchmarks.proto2.GoogleMessage2.Group1Rgroup1
field128Ä (	Rfield128
field131É (Rfield131
field127 (	Rfield127
field129Å (Rfield129
field130Ç (Rfield130"
field205Õ (:falseRfield205"
field206Œ (:falseRfield206⁄
Group1
field11 (Rfield11
field26 (Rfield26
field12 (	Rfield12
field13 (	Rfield13
field14 (	Rfield14
field15 (Rfield15
field5 (Rfield5
field27 (	Rfield27
field28 (Rfield28
field29 (	Rfield29
field16 (	Rfield16
field22 (	Rfield22
field73I (Rfield73
field20 (:0Rfield20
field24 (	Rfield24I
field31 (2/.benchmarks.proto2.GoogleMessage2GroupedMessageRfield31"∫
GoogleMessage2GroupedMessage
field1 (Rfield1
field2 (Rfield2
field3 (:0Rfield3
field4 (Rfield4
field5 (Rfield5
field6 (:trueRfield6
field7 (:falseRfield7
field8 (Rfield8
field9	 (Rfield9
field10
 (Rfield10
field11 (Rfield11B%
com.google.protobuf.benchmarksH¯