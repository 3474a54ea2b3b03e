import Foundation
import HearClearCore

/// What an operator can tune in the `--config` JSON file. Every key is optional:
///
///     {"scale": {"unit": "dBA", "bands": [{"label": "quiet", "max_db": 70}, ...]},
///      "max_body_bytes": 4194304, "default_calibration_db": 110, "admin_password": "..."}
public struct ServerSettings: Sendable, Equatable {
    public var scale: LabelScale
    /// The largest request body accepted, counted after decompression.
    public var maxBodyBytes: Int
    /// Turns dBFS into dB SPL for check-ins that bring no calibration of their own (docs/analysis.md).
    public var defaultCalibrationDB: Double
    /// The password of the admin pages (user `admin`); without one they are off.
    public var adminPassword: String?

    public init(
        scale: LabelScale = .standard, maxBodyBytes: Int = 4 * 1024 * 1024, defaultCalibrationDB: Double = Level.defaultCalibrationDB,
        adminPassword: String? = nil
    ) {
        self.scale = scale
        self.maxBodyBytes = maxBodyBytes
        self.defaultCalibrationDB = defaultCalibrationDB
        self.adminPassword = adminPassword
    }

    struct File: Decodable {
        var scale: LabelScale?
        var maxBodyBytes: Int?
        var defaultCalibrationDB: Double?
        var adminPassword: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case scale
            case maxBodyBytes = "max_body_bytes"
            case defaultCalibrationDB = "default_calibration_db"
            case adminPassword = "admin_password"
        }
    }

    public struct InvalidFile: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads a config file over the defaults. A misspelt key is an error rather than silently ignored.
    public static func load(contentsOf path: String) throws -> ServerSettings {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw InvalidFile(description: "cannot read config file \(path): \(error.localizedDescription)")
        }
        let file: File
        do {
            if let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] {
                let known = Set(File.CodingKeys.allCases.map(\.stringValue))
                if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
                    throw InvalidFile(description: "config file \(path): unknown key \"\(unknown)\" (known: \(known.sorted().joined(separator: ", ")))")
                }
            }
            file = try JSONDecoder().decode(File.self, from: data)
        } catch let error as InvalidFile {
            throw error
        } catch {
            throw InvalidFile(description: "config file \(path) is not valid: \(error)")
        }
        var settings = ServerSettings()
        if let scale = file.scale {
            do { try scale.validate() } catch { throw InvalidFile(description: "config file \(path): \(error)") }
            settings.scale = scale
        }
        if let maxBodyBytes = file.maxBodyBytes {
            guard maxBodyBytes >= 1024 else { throw InvalidFile(description: "config file \(path): max_body_bytes must be at least 1024") }
            settings.maxBodyBytes = maxBodyBytes
        }
        if let calibration = file.defaultCalibrationDB {
            guard calibration.isFinite, (0...200).contains(calibration) else {
                throw InvalidFile(description: "config file \(path): default_calibration_db must be between 0 and 200")
            }
            settings.defaultCalibrationDB = calibration
        }
        if let password = file.adminPassword {
            guard password.count >= 8 else { throw InvalidFile(description: "config file \(path): admin_password must have at least 8 characters") }
            settings.adminPassword = password
        }
        return settings
    }
}
